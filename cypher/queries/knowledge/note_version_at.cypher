// The version of a fact that was true at $asOf (epoch ms): among the notes joined to $id by
// supersedes edges (either way, the whole chain), the one that had begun (validFrom, else
// when it was recorded), had not ended, and was not yet superseded by a note begun by then;
// the latest begun if several were.
MATCH (n:Knowledge {userId: $userId, id: $id})
MATCH (n)-[:SUPERSEDES]-{0,50}(v:Knowledge)
WITH DISTINCT v
WHERE v.userId = $userId
  AND coalesce(v.validFrom, CASE WHEN v.validUntil <= v.createdAt.epochMillis THEN 0
          ELSE v.createdAt.epochMillis END) <= $asOf
  AND (v.validUntil IS NULL OR v.validUntil > $asOf)
  AND NOT EXISTS {
    MATCH (s:Knowledge)-[:SUPERSEDES]->(v) WHERE coalesce(s.validFrom, s.createdAt.epochMillis) <= $asOf
  }
RETURN v.id AS id
ORDER BY coalesce(v.validFrom, v.createdAt.epochMillis) DESC, v.id
LIMIT 1
