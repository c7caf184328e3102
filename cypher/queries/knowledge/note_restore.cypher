// Bring a deleted note back as the journal kept it (an undo of its delete): every property
// it held ($note.props; those named in $note.times are times, kept as epoch milliseconds),
// its labels ($note.labels: the note's own, as stored, checked by the caller), its merge
// records (held by the delete's mutation $heldBy; an entry from before they were held keeps
// them in $note.merges), and its edges to notes that still exist (a supersedes edge marks its target
// superseded again). The id is free: the undo checked.
MATCH (t:Tenant {userId: $userId})
CREATE (n:Knowledge:$($note.labels) {userId: $userId, id: $note.id})
SET n += $note.props,
    n.status = CASE WHEN $note.props.status = 'superseded' THEN 'active' ELSE $note.props.status END,
    n.updatedAt = datetime(), n.tenantKey = $tenantKey, n.embeddingModel = $embeddingModel,
    n.mergeCount = coalesce($note.props.mergeCount, 0)
FOREACH (name IN $note.times | SET n[name] = datetime({epochMillis: $note.props[name]}))
SET t.notes = t.notes + 1
WITH n
CALL db.create.setNodeVectorProperty(n, 'embedding', $embedding)
CALL (n) {
  MATCH (h:MergedNote {userId: $userId, heldBy: $heldBy})
  CREATE (n)-[:MERGED_FROM]->(h)
  REMOVE h.heldBy, h.heldNote
}
CALL (n) {
  UNWIND $note.merges AS m
  CREATE (n)-[:MERGED_FROM]->(:MergedNote {
    userId: $userId, id: m.id, requestedId: m.requestedId, title: m.title, content: m.content,
    type: m.type, source: m.source, confidence: m.confidence, tags: m.tags, sourceRef: m.sourceRef,
    similarity: m.similarity, mergedAt: datetime({epochMillis: m.mergedAt}),
    createdByRole: m.createdByRole, createdByAgent: m.createdByAgent
  })
}
CALL (n) {
  UNWIND $edges AS e
  MATCH (o:Knowledge {userId: $userId, id: e.otherId})
  CALL (n, o, e) {
    WITH * WHERE e.outgoing
    CREATE (n)-[r:$(e.relType)]->(o)
    RETURN r
    UNION
    WITH * WHERE NOT e.outgoing
    CREATE (o)-[r:$(e.relType)]->(n)
    RETURN r
  }
  WITH e, r, endNode(r) AS target
  SET r.createdAt = datetime({epochMillis: e.createdAt}), r.source = e.source,
      r.confidence = e.confidence, r.note = e.note, r.createdByRole = e.createdByRole,
      r.createdByAgent = e.createdByAgent, r.confirmedByPerson = e.confirmedByPerson,
      r.validFrom = e.validFrom, r.validUntil = e.validUntil
  FOREACH (_ IN CASE WHEN e.relType = 'SUPERSEDES' AND target.status = 'active' THEN [1] ELSE [] END |
    SET target.status = 'superseded', target.updatedAt = datetime()
  )
  RETURN collect(e.index) AS restored
}
RETURN n.id AS id, restored
