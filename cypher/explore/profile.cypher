// A user's profile, each preference with the insight it was promoted from (if any), and the
// journal of changes to it.
// :param userId => 'dev'
MATCH (pr:Profile {userId: $userId})
OPTIONAL MATCH (pr)-[prefers:PREFERS]->(f:Preference)
OPTIONAL MATCH (f)-[promoted:PROMOTED_FROM]->(i:Insight)
OPTIONAL MATCH (m:Mutation)-[changed:CHANGED]->(pr)
RETURN pr, prefers, f, promoted, i, m, changed
