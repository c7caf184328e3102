// Queue a job, unless a live job of this kind already runs on the thread (a job without a
// thread, such as maintenance: for the user): then that one is the answer, with the params
// it was started with (one extraction per thread, one run of each maintenance task per
// user at a time). Runs under the user's write gate, so two simultaneous starts agree. A
// job whose lease ran out is not live.
OPTIONAL MATCH (live:Job)
WHERE live.userId = $userId AND live.kind = $kind
  AND coalesce(live.threadId, '') = coalesce($threadId, '')
  AND live.status IN ['queued', 'running'] AND live.leaseUntil > datetime()
WITH live
ORDER BY live.createdAt
LIMIT 1
CALL (live) {
  WITH live WHERE live IS NULL
  CREATE (j:Job {
    id: $id, userId: $userId, kind: $kind, threadId: $threadId, params: $params, status: 'queued',
    owner: $owner, leaseUntil: datetime() + duration({seconds: $leaseSeconds}),
    createdAt: datetime(), updatedAt: datetime()
  })
  RETURN j.id AS id, j.params AS params
  UNION
  WITH live WHERE live IS NOT NULL
  RETURN live.id AS id, live.params AS params
}
RETURN id, params
