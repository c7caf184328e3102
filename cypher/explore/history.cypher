// The history of one thing of a user's (a note, an edge "a relatedTo b", a thread, a
// message, a session, a pending action, the profile): every change, newest first, with who
// made it and in which session, what it undid, and the correction it was (if a person
// fixed an agent's write). :param targetId is the thing's id (the user id for the profile).
// Live targets are also reachable from the graph: (:Mutation)-[:CHANGED]->(target).
// :param userId => 'dev'
// :param targetId => 'n1'
MATCH (m:Mutation {userId: $userId, targetId: $targetId})
OPTIONAL MATCH (m)-[:UNDOES]->(undone:Mutation)
OPTIONAL MATCH (c:Correction)-[:RECORDS]->(m)
RETURN m.seq AS seq, m.part AS part, m.at AS at, m.role AS role, m.agentId AS agent,
       m.sessionId AS session, m.op AS op, m.before AS before, m.after AS after,
       undone.id AS undoes, c.fields AS corrected, c.reason AS reason
ORDER BY seq DESC, part DESC
