// A user's jobs: one extraction per thread at a time, and forgetting a user.
CREATE INDEX job_user IF NOT EXISTS
FOR (j:Job) ON (j.userId)
