// How many jobs are in each state, over all users (for /metrics: counts, no user's data),
// each counted on the job_status index. A queued or running job whose lease ran out is
// `expired` instead: the process that held it stopped, and the next start-up (or the next
// start of that extraction) marks it failed.
UNWIND ['queued', 'running', 'done', 'failed'] AS state
CALL (state) {
  MATCH (j:Job)
  WHERE j.status = state
  RETURN count(j) AS jobs
}
CALL (state) {
  MATCH (j:Job)
  WHERE j.status = state AND state IN ['queued', 'running'] AND j.leaseUntil <= datetime()
  RETURN count(j) AS expired
}
RETURN state, jobs - expired AS jobs, expired
