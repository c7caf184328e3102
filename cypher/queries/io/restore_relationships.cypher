// Write one batch of a restore's relationships between nodes the restore wrote (found by
// their refs through the Restoring index; a ref the restore did not write finds nothing,
// and the caller refuses the batch), with their properties as restore_nodes sets them.
UNWIND $relationships AS row
MATCH (a:Restoring {userId: $userId, restoreRef: row.start})
MATCH (b:Restoring {userId: $userId, restoreRef: row.end})
CREATE (a)-[r:$(row.type)]->(b)
SET r += row.plain
WITH r, row
CALL (r, row) {
  UNWIND row.temporal AS t
  SET r[t.key] = CASE t.type
    WHEN 'datetime' THEN datetime(t.value)
    WHEN 'localdatetime' THEN localdatetime(t.value)
    WHEN 'date' THEN date(t.value)
    WHEN 'time' THEN time(t.value)
    WHEN 'localtime' THEN localtime(t.value)
    WHEN 'duration' THEN duration(t.value)
  END
}
RETURN count(r) AS written
