// Write one batch of a restore's nodes: each made anew for the restoring user with its
// labels (checked against graph/io/format.py's allow-lists before this runs) and its
// properties; temporal values parsed from their text, vectors stored as the vector
// procedure stores them (32-bit), the user's id and tenant key set here, never taken from
// the file. Each carries the Restoring label and its ref (its element id in the exporting
// database) until the restore ends, so the relationships of later batches find it.
UNWIND $nodes AS row
CREATE (n:Restoring {userId: $userId, restoreRef: row.ref})
SET n += row.plain, n:$(row.labels)
SET n.tenantKey = CASE WHEN row.tenantKey THEN $tenantKey END
WITH n, row
CALL (n, row) {
  UNWIND row.temporal AS t
  SET n[t.key] = CASE t.type
    WHEN 'datetime' THEN datetime(t.value)
    WHEN 'localdatetime' THEN localdatetime(t.value)
    WHEN 'date' THEN date(t.value)
    WHEN 'time' THEN time(t.value)
    WHEN 'localtime' THEN localtime(t.value)
    WHEN 'duration' THEN duration(t.value)
  END
}
CALL (n, row) {
  UNWIND row.vectors AS v
  CALL db.create.setNodeVectorProperty(n, v.key, v.value)
}
RETURN count(n) AS written
