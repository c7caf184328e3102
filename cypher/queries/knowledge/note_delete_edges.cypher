// The edges a note's delete removed, as its write journaled them (each its own
// edge.disconnect, before the delete's own entry): what an undo of the delete brings back.
// An entry a forget scrubbed has nothing left to bring back.
MATCH (m:Mutation {userId: $userId, seq: $seq})
WHERE m.op = 'edge.disconnect' AND m.part < $part AND m.scrubbed IS NULL
  AND $id IN [split(m.targetId, ' ')[0], split(m.targetId, ' ')[2]]
WITH m ORDER BY m.part
RETURN collect({id: m.id, before: m.before}) AS edges
