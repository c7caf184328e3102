// What the judge has not looked at yet: the notes the user created after its watermark (the
// write and part of the last note.create it looked at, kept on the user's Tenant node, so it
// is exported, restored and forgotten with the user), in the journal's order, at most $limit,
// each as it stands now (a note deleted since: no status). A project context entry says its
// kind (a decision's notices are judged, not its text), and whether it was created with
// dedupe off (`uncompared`: its pairs are not looked for). Read through the journal's
// (userId, seq) index from the watermark on.
OPTIONAL MATCH (t:Tenant {userId: $userId})
WITH coalesce(t.judgedSeq, 0) AS fromSeq, coalesce(t.judgedPart, -1) AS fromPart
MATCH (m:Mutation)
WHERE m.userId = $userId AND m.seq >= fromSeq AND m.op = 'note.create'
  AND (m.seq > fromSeq OR coalesce(m.part, 0) > fromPart)
WITH m
ORDER BY m.seq, m.part
LIMIT $limit
OPTIONAL MATCH (n:Knowledge {userId: $userId, id: m.targetId})
RETURN m.seq AS seq, coalesce(m.part, 0) AS part, m.targetId AS id, n.status AS status,
  n.title AS title, n.content AS content, n.kind AS kind, m.uncompared IS NOT NULL AS uncompared,
  CASE WHEN $withEmbedding THEN n.embedding ELSE null END AS embedding
