// The status of each of these notes and how many notes supersede it: read before and after
// a write that adds or removes supersedes edges, to journal each status it flips
// (note.status) and to hold an agent's flip of a status a person corrected.
UNWIND $ids AS id
MATCH (n:Knowledge {userId: $userId, id: id})
RETURN n.id AS id, n.status AS status, COUNT { (:Knowledge)-[:SUPERSEDES]->(n) } AS superseders
