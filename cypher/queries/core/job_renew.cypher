// The holder of a live job renews its lease; no row back means the job was taken from it.
MATCH (j:Job {id: $id})
WHERE j.owner = $owner AND j.status IN ['queued', 'running']
SET j.leaseUntil = datetime() + duration({seconds: $leaseSeconds}), j.heartbeatAt = datetime()
RETURN j.id AS id
