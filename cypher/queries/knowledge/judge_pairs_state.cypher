// Before the judge applies its verdicts, under the write gate: each pair's notes as they
// stand (status, text, the newer one's confidence), the edges between them, and whether the
// older note already reaches the newer one by supersedes edges (an edge the other way would
// close a loop).
UNWIND $pairs AS pair
OPTIONAL MATCH (a:Knowledge {userId: $userId, id: pair.older})
OPTIONAL MATCH (b:Knowledge {userId: $userId, id: pair.newer})
RETURN pair.key AS key,
  a.status AS olderStatus, a.title AS olderTitle, a.content AS olderContent,
  b.status AS newerStatus, b.title AS newerTitle, b.content AS newerContent, b.confidence AS confidence,
  a IS NOT NULL AND b IS NOT NULL AND EXISTS { (b)-[:SUPERSEDES]->(a) } AS supersedes,
  a IS NOT NULL AND b IS NOT NULL AND EXISTS { (b)-[:CONFLICTS_WITH]-(a) } AS conflicts,
  a IS NOT NULL AND b IS NOT NULL AND EXISTS { (a)-[:SUPERSEDES]->+(b) } AS loops
