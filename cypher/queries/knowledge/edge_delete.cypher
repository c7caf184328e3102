// Remove one edge; a note no longer superseded by anything becomes active again.
MATCH (a:Knowledge {userId: $userId, id: $sourceId})-[r:$($relType)]-(b:Knowledge {userId: $userId, id: $targetId})
WHERE startNode(r) = a OR $relType = 'CONFLICTS_WITH'
WITH r, endNode(r) AS target
DELETE r
WITH target
CALL (target) {
  WITH target
  WHERE $relType = 'SUPERSEDES' AND target.status = 'superseded'
    AND NOT EXISTS { (:Knowledge)-[:SUPERSEDES]->(target) }
  SET target.status = 'active', target.updatedAt = datetime()
}
RETURN count(*) AS deleted
