// A user's proposals newest first (one write may propose several: by id within it),
// optionally of one status; ($beforeSeq, $beforeId) continues a page. One list (db.listed).
MATCH (p:Proposal)
USING INDEX p:Proposal(userId, seq)
WHERE p.userId = $userId AND p.seq IS NOT NULL
  AND ($status IS NULL OR p.status = $status)
  AND ($beforeSeq IS NULL OR p.seq < $beforeSeq OR (p.seq = $beforeSeq AND p.id < $beforeId))
WITH p
ORDER BY p.userId DESC, p.seq DESC, p.id DESC
LIMIT $limit
RETURN collect({seq: p.seq, proposal: p {.*, createdAt: p.createdAt.epochMillis, decidedAt: p.decidedAt.epochMillis}}) AS rows
