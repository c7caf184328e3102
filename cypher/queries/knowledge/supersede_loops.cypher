// Supersession must not loop (A supersedes B plus B supersedes A would hide both): which of
// these notes a chain of supersedes edges leads back to.
UNWIND $ids AS id
MATCH (a:Knowledge {userId: $userId, id: id})
WHERE EXISTS { (a)-[:SUPERSEDES]->+(a) }
RETURN collect(a.id) AS looping
