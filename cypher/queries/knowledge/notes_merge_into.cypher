// Fold near-duplicate creates into existing notes, keeping each as a MergedNote record
// (with an id, so an undo of the merge removes just that record, and the payload it carried). The note's confidence
// and tags take the merged note's in, except those a person wrote (m.keep).
UNWIND $merges AS m
MATCH (k:Knowledge {userId: $userId, id: m.targetId})
CREATE (k)-[:MERGED_FROM]->(:MergedNote {
  userId: $userId, id: m.id, requestedId: m.requestedId, title: m.title, content: m.content,
  type: m.type, source: m.source, confidence: m.confidence, tags: m.tags, sourceRef: m.sourceRef, data: m.data,
  similarity: m.similarity, mergedAt: datetime(), createdByRole: $role, createdByAgent: $agentId
})
SET k.confidence = CASE
      WHEN 'confidence' IN coalesce(m.keep, []) THEN k.confidence
      WHEN m.confidence > k.confidence THEN m.confidence ELSE k.confidence END,
    k.tags = CASE WHEN 'tags' IN coalesce(m.keep, []) THEN k.tags
      ELSE k.tags + [t IN m.tags WHERE NOT t IN k.tags] END,
    k.mergeCount = coalesce(k.mergeCount, 0) + 1,
    k.updatedAt = datetime()
RETURN count(*) AS merged
