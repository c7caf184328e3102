// The history of one thing of a user's (a session, a pending action, the profile; notes
// once the journal covers them): every change, newest first, with who made it and in
// which session. :param targetId is the thing's id (the user id for the profile).
// :param userId => 'dev'
// :param targetId => 's1'
MATCH (m:Mutation {userId: $userId, targetId: $targetId})
OPTIONAL MATCH (m)-[changed:CHANGED]->(target)
RETURN m.seq AS seq, m.at AS at, m.role AS role, m.agentId AS agent, m.sessionId AS session,
       m.op AS op, m.before AS before, m.after AS after, target
ORDER BY seq DESC
