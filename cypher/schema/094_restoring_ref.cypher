// A restore of a whole user (graph/io/restore.py) marks each node it writes Restoring, with
// its ref in the export, until the restore ends: its relationships find their ends here.
CREATE INDEX restoring_ref IF NOT EXISTS
FOR (n:Restoring) ON (n.userId, n.restoreRef)
