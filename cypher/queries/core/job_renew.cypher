// The holder of a live job renews its lease while it still runs; no row back means the job
// was taken from it, or its lease ran out (the process stalled longer than the lease): a
// lease that ran out is not revived, so a stalled run cannot race the one that replaced it.
MATCH (j:Job {id: $id})
WHERE j.owner = $owner AND j.status IN ['queued', 'running'] AND j.leaseUntil > datetime()
SET j.leaseUntil = datetime() + duration({seconds: $leaseSeconds}), j.heartbeatAt = datetime()
RETURN j.id AS id
