// Close active goals of a user (completed or abandoned), each with its outcome.
UNWIND $rows AS row
MATCH (g:Goal {userId: $userId, id: row.id})
WHERE g.status = 'active'
SET g.status = $status, g.outcome = row.outcome, g.closedAt = datetime(),
    g.closedByRole = $role, g.closedByAgent = $agentId
RETURN collect(g.id) AS closed
