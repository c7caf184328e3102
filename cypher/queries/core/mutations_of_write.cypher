// The mutations of one write of a user (one gate sequence number), in their order.
MATCH (m:Mutation {userId: $userId, seq: $seq})
RETURN m.id AS id, m.op AS op, m.targetType AS targetType, m.targetId AS targetId, m.part AS part
ORDER BY part
