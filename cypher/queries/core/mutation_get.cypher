// One mutation of a user's journal, by id, with the undo that undid it (if any); for a key
// with an entity scope, only a mutation of notes and edges inside it (as mutations_list).
MATCH (m:Mutation {userId: $userId, id: $id})
WHERE $scope IS NULL OR (EXISTS { (m)-[:CHANGED]->(:Knowledge) } AND NOT EXISTS {
        MATCH (m)-[:CHANGED]->(k:Knowledge)
        WHERE NOT (k.id IN $scope.ids OR any(t IN coalesce(k.tags, []) WHERE t IN $scope.tags)) })
RETURN m {
  .id, .seq, .part, .role, .agentId, .sessionId, .op, .targetType, .targetId, .before, .after,
  .undoes, .proposalId, .scrubbed, at: m.at.epochMillis,
  undoneBy: [(u:Mutation)-[:UNDOES]->(m) | u.id][0]
} AS mutation
