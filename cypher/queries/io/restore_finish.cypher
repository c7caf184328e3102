// End a restore: the user's Tenant takes the exported one's properties ($tenant: its
// sequence, the journal's and this entry's, its counters) with its temporal values parsed
// from their text, and the restore's marks go; the gate then lets every write through.
MATCH (t:Tenant {userId: $userId})
WHERE t.restoring = $restoreId
SET t += $tenant
WITH t
CALL (t) {
  UNWIND $temporal AS v
  SET t[v.key] = CASE v.type
    WHEN 'datetime' THEN datetime(v.value)
    WHEN 'localdatetime' THEN localdatetime(v.value)
    WHEN 'date' THEN date(v.value)
    WHEN 'time' THEN time(v.value)
    WHEN 'localtime' THEN localtime(v.value)
    WHEN 'duration' THEN duration(v.value)
  END
}
REMOVE t.restoring, t.restoreFrom, t.restoreSha256, t.restoreRecords, t.restoreHeader, t.restoreDone, t.restoreStartedAt
RETURN t.seq AS seq
