// A note's text, and whether its stored vector came from the client (not the service's
// own reading of that text).
MATCH (n:Knowledge {userId: $userId, id: $id})
RETURN n.title AS title, n.content AS content, coalesce(n.vectorSupplied, false) AS vectorSupplied
