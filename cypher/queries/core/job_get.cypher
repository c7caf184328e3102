// One job of one user.
MATCH (j:Job {id: $id})
WHERE j.userId = $userId
RETURN j {
  .id, .kind, .threadId, .status, .counts, .error,
  createdAt: j.createdAt.epochMillis, updatedAt: j.updatedAt.epochMillis,
  startedAt: j.startedAt.epochMillis, finishedAt: j.finishedAt.epochMillis
} AS job
