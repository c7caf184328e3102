// Whether this process still holds a job: live, its owner, its lease not run out. A job's
// every gated write asks first, in its own transaction; no row and the write is refused
// (the job was failed after its lease ran out, and maybe started again elsewhere).
MATCH (j:Job {id: $id})
WHERE j.owner = $owner AND j.status IN ['queued', 'running'] AND j.leaseUntil > datetime()
RETURN j.id AS id
