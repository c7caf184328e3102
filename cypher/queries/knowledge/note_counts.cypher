// How many notes the vector index holds, and how many of them are this user's:
// the ratio decides between an exact scan and an oversampled index query.
MATCH (n:Knowledge)
WITH count(n) AS total
OPTIONAL MATCH (mine:Knowledge) WHERE mine.userId = $userId
RETURN total, count(mine) AS mine
