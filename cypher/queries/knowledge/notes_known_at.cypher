// What the journal recorded of these notes up to $knownAt (epoch ms), in the order the
// writes committed: each note's changes (op, before, after, when), to replay what the memory
// held then (record time). Through the (userId, targetId) index.
UNWIND $ids AS id
MATCH (m:Mutation {userId: $userId, targetId: id})
WHERE m.targetType = 'Knowledge' AND m.at <= datetime({epochMillis: $knownAt})
WITH id, m ORDER BY m.seq, coalesce(m.part, 0)
RETURN id, collect({op: m.op, after: m.after, at: m.at.epochMillis}) AS changes
