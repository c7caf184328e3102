// The mutations after $afterSeq that added or removed a supersedes edge at one of these
// notes, newest first (through each mutation's CHANGED link to the note): what an undo that
// would break the supersedes rules names as the mutation in its way.
MATCH (m:Mutation {userId: $userId})-[:CHANGED]->(n:Knowledge {userId: $userId})
WHERE n.id IN $ids AND m.seq > $afterSeq AND m.op IN ['edge.connect', 'edge.disconnect']
  AND m.targetId CONTAINS ' supersedes '
RETURN DISTINCT m.id AS id, m.op AS op, m.targetId AS targetId, m.seq AS seq, m.part AS part
ORDER BY seq DESC, part DESC
