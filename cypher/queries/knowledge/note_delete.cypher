// Delete a note with its edges and merge records, keeping the user's note count; notes it
// alone superseded become active again.
MATCH (n:Knowledge {userId: $userId, id: $id})
OPTIONAL MATCH (n)-[:SUPERSEDES]->(old:Knowledge)
WITH n, collect(DISTINCT old) AS olds
CALL (n) {
  MATCH (n)-[:MERGED_FROM]->(m:MergedNote)
  DETACH DELETE m
}
DETACH DELETE n
WITH olds
MATCH (t:Tenant {userId: $userId})
SET t.notes = t.notes - 1
WITH olds
CALL (olds) {
  UNWIND olds AS old
  WITH old
  WHERE old.status = 'superseded' AND NOT EXISTS { (:Knowledge)-[:SUPERSEDES]->(old) }
  SET old.status = 'active', old.updatedAt = datetime()
  RETURN collect(old.id) AS restored
}
RETURN true AS deleted, restored
