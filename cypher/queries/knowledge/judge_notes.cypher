// Notes the judge compares a new note with: their text, status and when each was created
// (the write and part of its note.create; none journaled: 0, 0, older than any), so a pair is
// always (older note, newer note) as a create would have seen them.
UNWIND $ids AS id
MATCH (n:Knowledge {userId: $userId, id: id})
WITH n, COLLECT {
  MATCH (m:Mutation {userId: $userId, targetId: id})
  WHERE m.op = 'note.create'
  RETURN [m.seq, coalesce(m.part, 0)] AS created
  ORDER BY m.seq, m.part
  LIMIT 1
} AS created
RETURN n.id AS id, n.title AS title, n.content AS content, n.status AS status,
  coalesce(created[0][0], 0) AS seq, coalesce(created[0][1], 0) AS part
