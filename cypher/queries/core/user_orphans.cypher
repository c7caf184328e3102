// A user's dangling records: merge records whose note is gone (and that no delete holds for
// its undo), and notes' edges to another user's notes (neither should ever exist).
CALL () {
  MATCH (m:MergedNote) WHERE m.userId = $userId AND m.heldBy IS NULL AND NOT EXISTS { (:Knowledge)-[:MERGED_FROM]->(m) }
  RETURN 'MergedNote' AS kind, elementId(m) AS elementId
  UNION
  MATCH (a:Knowledge)-[r]-(b:Knowledge)
  WHERE a.userId = $userId AND b.userId <> $userId
  RETURN 'crossUserEdge' AS kind, elementId(r) AS elementId
}
RETURN kind, elementId
