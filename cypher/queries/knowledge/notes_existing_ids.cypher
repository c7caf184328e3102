// Which of these ids are notes of this user (edges must never dangle).
MATCH (n:Knowledge)
WHERE n.userId = $userId AND n.id IN $ids
RETURN collect(n.id) AS ids
