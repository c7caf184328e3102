// One job of one user; `expired` when it is still marked live but its lease ran out.
MATCH (j:Job {id: $id})
WHERE j.userId = $userId
RETURN j {
  .id, .kind, .threadId, .status, .counts, .error, .report,
  createdAt: j.createdAt.epochMillis, updatedAt: j.updatedAt.epochMillis,
  startedAt: j.startedAt.epochMillis, finishedAt: j.finishedAt.epochMillis
} AS job,
  j.status IN ['queued', 'running'] AND coalesce(j.leaseUntil < datetime(), true) AS expired
