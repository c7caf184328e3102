// Partial update; a new type swaps the sublabel, a new embedding (always the service's own)
// replaces the vector.
MATCH (n:Knowledge {userId: $userId, id: $id})
SET n += $props, n.updatedAt = datetime()
FOREACH (_ IN CASE WHEN $label IS NULL THEN [] ELSE [1] END |
  REMOVE n:Fact:Concept:Procedure:Decision
  SET n:$($label)
)
WITH n
CALL (n) {
  WITH n WHERE $embedding IS NOT NULL
  CALL db.create.setNodeVectorProperty(n, 'embedding', $embedding)
  SET n.embeddingModel = $embeddingModel
  REMOVE n.vectorSupplied
}
RETURN n.id AS id
