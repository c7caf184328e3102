// How many threads and insights there are, and how many are this user's (chooses the plan
// by which a new decision looks for the conversations it may affect).
CALL () { MATCH (t:Thread) RETURN count(t) AS threads }
CALL () { MATCH (i:Insight) RETURN count(i) AS insights }
CALL () { MATCH (t:Thread) WHERE t.userId = $userId AND t.id IS NOT NULL RETURN count(t) AS myThreads }
CALL () { MATCH (i:Insight) WHERE i.userId = $userId RETURN count(i) AS myInsights }
RETURN threads, insights, myThreads, myInsights
