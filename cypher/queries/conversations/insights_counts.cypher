// How many insights there are, and how many are this user's (chooses the recall plan).
MATCH (i:Insight)
WITH count(i) AS total
OPTIONAL MATCH (mine:Insight) WHERE mine.userId = $userId
RETURN total, count(mine) AS mine
