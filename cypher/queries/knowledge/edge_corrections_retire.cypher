// A person's connect of an edge retires the corrections that held it removed (their word
// now is that it stands); the connect's mutation is kept, so an undo of it brings them back
// (queries/knowledge/corrections_on_undo).
MATCH (c:Correction {userId: $userId})
WHERE c.targetId IN $keys AND c.status = 'active' AND c.targetType = 'Edge' AND c.kind = 'delete'
SET c.status = 'retired', c.retiredBy = $mutationId
RETURN count(c) AS retired
