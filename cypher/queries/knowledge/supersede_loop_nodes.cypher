// The notes of one loop of supersedes edges through this note (an undo that would close one
// names the mutation that made the rest of it).
MATCH (a:Knowledge {userId: $userId, id: $id})
MATCH p = (a)-[:SUPERSEDES]->+(a)
RETURN [n IN nodes(p) | n.id] AS ids
LIMIT 1
