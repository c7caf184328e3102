// Queue a job, unless a live job of this kind already runs on the thread: then that one is
// the answer (one extraction per thread at a time). Runs under the user's write gate, so two
// simultaneous starts agree. A job whose lease ran out is not live.
OPTIONAL MATCH (live:Job)
WHERE live.userId = $userId AND live.threadId = $threadId AND live.kind = $kind
  AND live.status IN ['queued', 'running'] AND live.leaseUntil > datetime()
WITH live
ORDER BY live.createdAt
LIMIT 1
CALL (live) {
  WITH live WHERE live IS NULL
  CREATE (j:Job {
    id: $id, userId: $userId, kind: $kind, threadId: $threadId, status: 'queued',
    owner: $owner, leaseUntil: datetime() + duration({seconds: $leaseSeconds}),
    createdAt: datetime(), updatedAt: datetime()
  })
  RETURN j.id AS id
  UNION
  WITH live WHERE live IS NOT NULL
  RETURN live.id AS id
}
RETURN id
