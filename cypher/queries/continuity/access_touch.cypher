// Record that an actor (an agent, or a person's key) caught up now: at most once a minute,
// so catch_up, which otherwise writes nothing, costs a write rarely. Not while the user is
// being restored (graph/io/restore.py): the restore writes exactly what its file holds.
OPTIONAL MATCH (t:Tenant {userId: $userId})
WITH t WHERE t.restoring IS NULL
MERGE (a:Access {userId: $userId, actor: $actor})
WITH a
WHERE a.lastAccessAt IS NULL OR a.lastAccessAt < datetime() - duration('PT60S')
SET a.lastAccessAt = datetime()
RETURN a.lastAccessAt.epochMillis AS lastAccessAt
