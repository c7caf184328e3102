// A queued background job of one user.
CREATE (j:Job {
  id: $id, userId: $userId, kind: $kind, threadId: $threadId, status: 'queued',
  createdAt: datetime(), updatedAt: datetime()
})
RETURN j.id AS id
