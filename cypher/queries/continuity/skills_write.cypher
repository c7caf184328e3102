// Create or redefine skills of a user (their invocation counts are kept), each recording who
// wrote it last (a scoped key redefines only skills its own agent wrote).
UNWIND $rows AS row
MERGE (s:Skill {userId: $userId, id: row.id})
  ON CREATE SET s.createdAt = datetime(), s.invocationCount = 0, s.createdByRole = $role,
                s.createdByAgent = $agentId
SET s.name = row.name, s.bodyMd = row.bodyMd, s.bundle = row.bundle, s.trigger = row.trigger,
    s.tags = row.tags, s.updatedAt = datetime(), s.updatedByRole = $role, s.updatedByAgent = $agentId
RETURN count(s) AS written
