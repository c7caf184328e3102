// What a forget scrubs or removes besides the things themselves: the journal entries of the
// forgotten $targets (by target id through the index, and every entry linked to a note
// among them, an edge's included, as forget_notes scrubs them), and the corrections and proposals about one of them. Those that hold a query's
// text on their own are forget_match_trace_text's. Entries already scrubbed are left out.
CALL () {
  CALL () {
    UNWIND $targets AS target
    MATCH (m:Mutation {userId: $userId, targetId: target})
    WHERE m.scrubbed IS NULL
    RETURN m
    UNION
    MATCH (n:Knowledge)<-[:CHANGED]-(m:Mutation)
    WHERE n.userId = $userId AND n.id IN $targets AND m.scrubbed IS NULL
    RETURN m
  }
  WITH DISTINCT m
  RETURN 'journalEntry' AS kind, m.id AS id, m.targetId AS targetId
  UNION ALL
  MATCH (c:Correction)
  WHERE c.userId = $userId AND c.seq IS NOT NULL AND c.targetId IN $targets
  RETURN 'correction' AS kind, c.id AS id, c.targetId AS targetId
  UNION ALL
  MATCH (p:Proposal)
  WHERE p.userId = $userId AND p.seq IS NOT NULL AND p.targetId IN $targets
  RETURN 'proposal' AS kind, p.id AS id, p.targetId AS targetId
}
// One row of lists: a driver decodes it several times faster than a row per entry.
RETURN collect({kind: kind, id: id, targetId: targetId}) AS rows
