// Count one load of a skill (atomically: the SET takes the node's write lock).
MATCH (s:Skill {userId: $userId, id: $id})
SET s.invocationCount = s.invocationCount + 1, s.lastLoadedAt = datetime()
RETURN s.invocationCount AS invocationCount
