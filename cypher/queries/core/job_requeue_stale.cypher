// Jobs left running by a process that died: fail them so clients are not left waiting.
MATCH (j:Job)
WHERE j.status IN ['queued', 'running'] AND j.updatedAt < datetime() - duration({seconds: $staleSeconds})
SET j.status = 'failed', j.error = 'the process running this job stopped: start it again',
    j.updatedAt = datetime(), j.finishedAt = datetime()
RETURN count(j) AS failed
