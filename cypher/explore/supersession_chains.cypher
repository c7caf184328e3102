// Supersession chains: from the current note back through every note it replaced.
// :param userId => 'dev'
MATCH p = (latest:Knowledge {userId: $userId})-[:SUPERSEDES*1..10]->(old:Knowledge)
WHERE NOT EXISTS { (:Knowledge)-[:SUPERSEDES]->(latest) }
  AND NOT EXISTS { (old)-[:SUPERSEDES]->(:Knowledge) }
RETURN latest.title AS current, [x IN nodes(p) | x.title] AS chain, length(p) AS replaced, p
ORDER BY replaced DESC
