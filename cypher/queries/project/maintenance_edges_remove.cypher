// Remove edges at the user's notes, each named by its element id beside the user's note at
// one end ($rows: {element, noteId}; found in this same transaction, under the write gate).
// A note no longer superseded by any note becomes active again, as a removed supersedes
// edge leaves it (queries/knowledge/edge_delete). Returns the element ids removed.
UNWIND $rows AS row
MATCH (n:Knowledge {userId: $userId, id: row.noteId})-[r]-()
WHERE elementId(r) = row.element
WITH row.element AS element, type(r) = 'SUPERSEDES' AS superseding, endNode(r) AS target, r
DELETE r
WITH collect(element) AS removed, collect(CASE WHEN superseding THEN target END) AS freed
CALL (freed) {
  UNWIND freed AS target
  WITH DISTINCT target
  WHERE target:Knowledge AND target.userId = $userId AND target.status = 'superseded'
    AND NOT EXISTS { (:Knowledge)-[:SUPERSEDES]->(target) }
  SET target.status = 'active', target.updatedAt = datetime()
}
RETURN removed
