// A fact's versions on a timeline: every note of its supersedes chain (either way from
// :param id), oldest first, each with when it was true (valid time: validFrom, else when it
// was recorded; validUntil, else the start of the note that superseded it, else open) and when
// the memory learned of it and last changed it (record time: the journal). Switch to the
// graph view to see the chain itself.
// :param userId => 'dev'
// :param id => 'n1'
MATCH (n:Knowledge {userId: $userId, id: $id})
MATCH (n)-[:SUPERSEDES]-{0,50}(v:Knowledge)
WITH DISTINCT v
WITH v,
  datetime({epochMillis: coalesce(v.validFrom, v.createdAt.epochMillis)}) AS trueFrom,
  [x IN [v.validUntil] + [(s:Knowledge)-[:SUPERSEDES]->(v) | coalesce(s.validFrom, s.createdAt.epochMillis)]
    WHERE x IS NOT NULL] AS ends
OPTIONAL MATCH (m:Mutation {userId: $userId, targetId: v.id})
WITH v, trueFrom, ends, min(m.at) AS learned, max(m.at) AS lastChanged
RETURN v.id AS id, v.content AS fact, v.status AS status, trueFrom,
  CASE WHEN size(ends) = 0 THEN null
    ELSE datetime({epochMillis: reduce(e = ends[0], x IN ends | CASE WHEN x < e THEN x ELSE e END)}) END AS trueUntil,
  v.invalidReason AS endedBecause, coalesce(learned, v.createdAt) AS learned, lastChanged, v
ORDER BY trueFrom, v.id
