// A person's word on an edge an agent made (a connect of it as it stands), or that word
// taken back (an undo of the confirmation): the edge as it is after, for the journal.
MATCH (a:Knowledge {userId: $userId, id: $sourceId})-[r:$($relType)]-(b:Knowledge {userId: $userId, id: $targetId})
WHERE startNode(r) = a OR $relType = 'CONFLICTS_WITH'
SET r.confirmedByPerson = $confirmed
RETURN {
  relType: type(r), sourceId: startNode(r).id, targetId: endNode(r).id,
  createdAt: r.createdAt.epochMillis, source: r.source, confidence: r.confidence, note: r.note,
  validFrom: r.validFrom, validUntil: r.validUntil, createdByRole: r.createdByRole,
  createdByAgent: r.createdByAgent, confirmedByPerson: r.confirmedByPerson
} AS edge
