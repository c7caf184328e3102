// Move a job on: running, done (with counts as JSON) or failed (with the reason).
MATCH (j:Job {id: $id})
SET j.status = $status, j.counts = $counts, j.error = $error, j.updatedAt = datetime(),
    j.startedAt = CASE WHEN $status = 'running' THEN datetime() ELSE j.startedAt END,
    j.finishedAt = CASE WHEN $status IN ['done', 'failed'] THEN datetime() ELSE null END
RETURN j.id AS id
