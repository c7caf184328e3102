// A user's saved sessions: each wiki page with the session it was saved from and the typed
// insights it carries, newest save first. Switch to the graph view to see the provenance.
// :param userId => 'dev'
MATCH (s:Session {userId: $userId})-[:SAVED_AS]->(w:WikiPage)
OPTIONAL MATCH (i:Insight)-[:EXTRACTED_FROM]->(w)
RETURN s, w, collect(i) AS insights
ORDER BY w.savedAt DESC
LIMIT 100
