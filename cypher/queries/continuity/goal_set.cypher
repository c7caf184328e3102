// Push a goal onto a user's stack, under a goal of theirs when $parentId names one.
CREATE (g:Goal {
  userId: $userId, id: $id, title: $title, parentId: $parentId, status: 'active',
  createdAt: datetime(), createdByRole: $role, createdByAgent: $agentId, sessionId: $sessionId
})
WITH g
CALL (g) {
  MATCH (parent:Goal {userId: $userId, id: $parentId})
  CREATE (g)-[:SUBGOAL_OF]->(parent)
}
RETURN g.id AS id
