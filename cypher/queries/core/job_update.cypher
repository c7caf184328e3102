// Move a job on (running; done with counts as JSON, and a report as JSON if the work gave
// one; failed with the reason), only while this process holds it: a job another process
// failed once its lease ran out stays failed.
MATCH (j:Job {id: $id})
WHERE j.owner = $owner AND j.status IN ['queued', 'running']
SET j.status = $status, j.counts = $counts, j.error = $error, j.report = $report,
    j.updatedAt = datetime(),
    j.leaseUntil = CASE
      WHEN $status IN ['done', 'failed'] THEN null
      ELSE datetime() + duration({seconds: $leaseSeconds})
    END,
    j.startedAt = CASE WHEN $status = 'running' THEN datetime() ELSE j.startedAt END,
    j.finishedAt = CASE WHEN $status IN ['done', 'failed'] THEN datetime() ELSE null END
RETURN j.id AS id
