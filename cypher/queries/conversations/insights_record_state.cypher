// Before recording insights into a thread: which of the named messages are the thread's,
// which of the named notes are the user's, and which of the given ids and keys are taken
// (and by what). Read under the user's write gate, so the answer holds for the write.
MATCH (t:Thread {userId: $userId, id: $threadId})
CALL (t) {
  UNWIND $messageIds AS mid
  MATCH (m:Message {userId: $userId, id: mid})
  WHERE m.threadId = $threadId
  RETURN collect(m.id) AS messages
}
CALL () {
  UNWIND $knowledgeIds AS kid
  MATCH (k:Knowledge {userId: $userId, id: kid})
  RETURN collect(k.id) AS notes
}
CALL () {
  UNWIND $ids AS iid
  MATCH (i:Insight {userId: $userId, id: iid})
  RETURN collect({id: i.id, key: i.key}) AS byId
}
CALL () {
  UNWIND $keys AS ikey
  MATCH (i:Insight {userId: $userId, key: ikey})
  RETURN collect({id: i.id, key: i.key}) AS byKey
}
RETURN messages, notes, byId, byKey
