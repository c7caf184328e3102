// What a forget scrubs or removes besides the things themselves: journal entries of the
// forgotten $targets (by target id through the index, an edge's through its link to a
// note; those holding a query's text are forget_match_journal_text's), and corrections and
// proposals about a target or, with a $query, holding its text ($jsonQuery: the query as
// JSON text writes it, lower-cased). Entries already scrubbed are left out.
CALL () {
  CALL () {
    UNWIND $targets AS target
    MATCH (m:Mutation {userId: $userId, targetId: target})
    WHERE m.scrubbed IS NULL
    RETURN m
    UNION
    MATCH (n:Knowledge)<-[:CHANGED]-(m:Mutation)
    WHERE n.userId = $userId AND n.id IN $targets AND m.targetType = 'Edge' AND m.scrubbed IS NULL
    RETURN m
  }
  WITH DISTINCT m
  RETURN 'journalEntry' AS kind, m.id AS id, m.targetId AS targetId
  UNION ALL
  MATCH (c:Correction)
  WHERE c.userId = $userId AND c.seq IS NOT NULL
    AND (c.targetId IN $targets
         OR ($jsonQuery IS NOT NULL
             AND (toLower(coalesce(c.before, '')) CONTAINS $jsonQuery OR toLower(coalesce(c.after, '')) CONTAINS $jsonQuery
                  OR toLower(coalesce(c.embeddedText, '')) CONTAINS $query)))
  RETURN 'correction' AS kind, c.id AS id, c.targetId AS targetId
  UNION ALL
  MATCH (p:Proposal)
  WHERE p.userId = $userId AND p.seq IS NOT NULL
    AND (p.targetId IN $targets OR ($jsonQuery IS NOT NULL AND toLower(coalesce(p.payload, '')) CONTAINS $jsonQuery))
  RETURN 'proposal' AS kind, p.id AS id, p.targetId AS targetId
}
// One row of lists: a driver decodes it several times faster than a row per entry.
RETURN collect({kind: kind, id: id, targetId: targetId}) AS rows
