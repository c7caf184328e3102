// The user's superseded architecture decisions superseded more than $olderThanDays days ago.
// "Superseded at" is the time of the newest supersedes edge into the decision from one of the
// user's notes, else (no such edge) the decision's updatedAt.
MATCH (n:Knowledge:ProjectContext {userId: $userId, kind: 'decision'})
WHERE n.status = 'superseded'
CALL (n) {
  OPTIONAL MATCH (s:Knowledge)-[r:SUPERSEDES]->(n)
  WHERE s.userId = $userId
  RETURN max(r.createdAt) AS newest
}
WITH n, coalesce(newest, n.updatedAt) AS supersededAt
WHERE supersededAt < datetime() - duration({days: $olderThanDays})
RETURN n.id AS id, supersededAt.epochMillis AS supersededAt
ORDER BY id
