// Jobs whose lease ran out belong to a process that died or hung: fail them, so no client
// waits on them for ever (any process may do this; the holder, if alive, then drops them).
MATCH (j:Job)
WHERE j.status IN ['queued', 'running'] AND (j.leaseUntil IS NULL OR j.leaseUntil < datetime())
SET j.status = 'failed', j.error = 'the process running this job stopped or hung: start it again',
    j.updatedAt = datetime(), j.finishedAt = datetime(), j.leaseUntil = null
RETURN count(j) AS failed
