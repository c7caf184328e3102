// How many notes the vector index holds (from Neo4j's count store: no scan), and how many
// of them are this user's (kept exactly on their Tenant node by the write gate; counted
// here only for a user who has not written through it yet): the ratio decides between an
// exact scan and an oversampled index query. `conversations`: whether any of the user's
// notes is a conversation's turn (search.COLLAPSE; the first found ends the look), so a
// default search ranks deep enough to count each conversation once.
MATCH (n:Knowledge)
WITH count(n) AS total
OPTIONAL MATCH (t:Tenant {userId: $userId})
RETURN total,
       CASE
         WHEN t.notes IS NULL THEN COUNT { MATCH (m:Knowledge) WHERE m.userId = $userId }
         ELSE t.notes
       END AS mine,
       EXISTS { MATCH (c:Knowledge) WHERE c.userId = $userId AND c.source = 'conversation'
         AND c.sourceRef IS NOT NULL AND NOT c.sourceRef STARTS WITH 'thread:' } AS conversations
