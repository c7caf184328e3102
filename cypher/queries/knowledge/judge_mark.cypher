// The judge has looked at every note created up to this write and part: its watermark moves
// on (never back: two judges that looked at overlapping notes keep the later one).
MATCH (t:Tenant {userId: $userId})
WHERE t.judgedSeq IS NULL OR t.judgedSeq < $seq
  OR (t.judgedSeq = $seq AND coalesce(t.judgedPart, -1) < $part)
SET t.judgedSeq = $seq, t.judgedPart = $part
RETURN t.judgedSeq AS seq
