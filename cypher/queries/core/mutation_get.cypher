// One mutation of a user's journal, by id, with the undo that undid it (if any).
MATCH (m:Mutation {userId: $userId, id: $id})
RETURN m {
  .id, .seq, .part, .role, .agentId, .sessionId, .op, .targetType, .targetId, .before, .after,
  .undoes, .proposalId, .scrubbed, at: m.at.epochMillis,
  undoneBy: [(u:Mutation)-[:UNDOES]->(m) | u.id][0]
} AS mutation
