// The vector a mutation kept of what it removed (a note's delete), and the model that made it.
MATCH (m:Mutation {userId: $userId, id: $id})
RETURN m.vector AS vector, m.vectorModel AS model
