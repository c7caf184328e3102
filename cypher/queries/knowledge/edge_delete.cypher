// Remove one edge, returning it as it was (for the journal: its maker and a person's word on
// it too, so an undo brings it back as it was); a note no longer superseded
// by anything becomes active again.
MATCH (a:Knowledge {userId: $userId, id: $sourceId})-[r:$($relType)]-(b:Knowledge {userId: $userId, id: $targetId})
WHERE startNode(r) = a OR $relType = 'CONFLICTS_WITH'
WITH r, endNode(r) AS target, {
  relType: type(r), sourceId: startNode(r).id, targetId: endNode(r).id,
  createdAt: r.createdAt.epochMillis, source: r.source, confidence: r.confidence, note: r.note, validFrom: r.validFrom, validUntil: r.validUntil,
  createdByRole: r.createdByRole, createdByAgent: r.createdByAgent, confirmedByPerson: r.confirmedByPerson
} AS edge
DELETE r
WITH target, edge
CALL (target) {
  WITH target
  WHERE $relType = 'SUPERSEDES' AND target.status = 'superseded'
    AND NOT EXISTS { (:Knowledge)-[:SUPERSEDES]->(target) }
  SET target.status = 'active', target.updatedAt = datetime()
}
RETURN count(*) AS deleted, collect(edge) AS edges
