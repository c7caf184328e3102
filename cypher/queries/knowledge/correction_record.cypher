// A person's correction of agent-written fields of a note, linked to its mutation. A
// delete keeps the note's vector, a correction of its title or content the vector of the
// text it replaced, so an agent's create of a twin of either becomes a proposal. The text
// and model the vector came from are kept with it, so `ctxnet db reembed` can move it.
MATCH (m:Mutation {userId: $userId, id: $mutationId})
CREATE (c:Correction {
  userId: $userId, id: $id, seq: $seq, mutationId: $mutationId, kind: $kind,
  targetType: $targetType, targetId: $targetId, fields: $fields, before: $before, after: $after, reason: $reason,
  keyId: $keyId, at: datetime(), status: 'active', fingerprint: $fingerprint
})
CREATE (c)-[:RECORDS]->(m)
WITH c
CALL (c) {
  WITH c WHERE $embedding IS NOT NULL
  CALL db.create.setNodeVectorProperty(c, 'embedding', $embedding)
  SET c.embeddedText = $embeddedText, c.embeddingModel = $embeddingModel
}
RETURN c.id AS id
