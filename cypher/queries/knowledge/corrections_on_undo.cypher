// An undo of mutation $undoneId retires the corrections it recorded (a person's correction
// taken back no longer holds agents off) and, when it undoes an undo, brings back the ones
// that undo retired.
CALL () {
  MATCH (c:Correction {userId: $userId, mutationId: $undoneId})
  WHERE c.status = 'active'
  SET c.status = 'retired', c.retiredBy = $undoId
  RETURN count(c) AS retired
}
CALL () {
  MATCH (c:Correction {userId: $userId, kind: 'update'})
  WHERE c.retiredBy = $undoneId
  SET c.status = 'active', c.retiredBy = null
  RETURN count(c) AS updates
}
CALL () {
  MATCH (c:Correction {userId: $userId, kind: 'delete'})
  WHERE c.retiredBy = $undoneId
  SET c.status = 'active', c.retiredBy = null
  RETURN count(c) AS deletes
}
RETURN retired, updates + deletes AS revived
