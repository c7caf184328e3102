// Live jobs (queued or running) found without scanning finished ones, to fail those whose
// lease ran out.
CREATE INDEX job_status IF NOT EXISTS
FOR (j:Job) ON (j.status)
