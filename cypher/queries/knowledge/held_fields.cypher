// What holds some notes' fields against an agent's write: each note's active corrections
// (newest first) and who wrote its fields last (`personFields`; a note from before that
// was kept counts as its creator's). Notes that do not exist come back with a null note.
UNWIND $targetIds AS targetId
OPTIONAL MATCH (n:Knowledge {userId: $userId, id: targetId})
RETURN targetId,
  CASE WHEN n IS NULL THEN null ELSE n {.personFields, .createdByRole} END AS note,
  COLLECT {
    MATCH (c:Correction {userId: $userId, targetId: targetId})
    WHERE c.status = 'active' AND coalesce(c.targetType, 'Knowledge') = 'Knowledge'
    WITH c ORDER BY c.seq DESC
    RETURN c {.id, .fields}
  } AS corrections
