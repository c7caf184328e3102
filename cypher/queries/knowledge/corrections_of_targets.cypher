// The active corrections of some notes, newest first: the fields a person set over an
// agent's, which agent writes may no longer change without a person's approval.
UNWIND $targetIds AS targetId
MATCH (c:Correction {userId: $userId, targetId: targetId})
WHERE c.status = 'active'
RETURN c.targetId AS targetId, c.id AS id, c.fields AS fields
ORDER BY c.seq DESC
