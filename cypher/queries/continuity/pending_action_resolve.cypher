// Acknowledge and clear one pending action with its resolution.
MATCH (p:PendingAction)
WHERE p.userId = $userId AND p.id = $id AND p.status = 'open'
SET p.status = 'done', p.resolution = $resolution, p.resolvedAt = datetime(),
    p.resolvedByRole = $role, p.resolvedByAgent = $agentId
RETURN p.id AS id
