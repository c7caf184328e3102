// A user's corrections: each person's fix of an agent's note with the mutation it records,
// the note (while it exists), the sessions that acknowledged it, and the agent proposals
// it holds back. Switch to the graph view to see them around the note.
// :param userId => 'dev'
MATCH (c:Correction {userId: $userId})-[:RECORDS]->(m:Mutation)
OPTIONAL MATCH (m)-[:CHANGED]->(note:Knowledge)
OPTIONAL MATCH (ack:CorrectionAck)-[:ACKNOWLEDGES]->(c)
OPTIONAL MATCH (p:Proposal)-[:CHALLENGES]->(c)
RETURN c, m, note, collect(DISTINCT ack) AS acknowledgements, collect(DISTINCT p) AS proposals
ORDER BY c.seq DESC
LIMIT 50
