// Take a forget's text out of things that stay ($items: {kind, id, fields, remove}): each of
// its fields that held the text gets $forgotten (a payload, `data`: $forgottenData, the same
// as JSON text, so it is still JSON), a list loses the items in `remove` (all
// of them when `remove` is null: a replay, which keeps no text), an edge (id "<source>
// <type> <target>") loses its note or source. A thread whose topic or a message of which changed
// loses its gist vectors (graph.conversations.gists makes them again from what is left).
// Safe to run again.
UNWIND $items AS item
CALL (item) {
  MATCH (n:Message {userId: $userId, id: item.id}) WHERE item.kind = 'message'
  RETURN n, n.threadId AS threadId
  UNION
  MATCH (n:Thread {userId: $userId, id: item.id}) WHERE item.kind = 'thread'
  RETURN n, n.id AS threadId
  UNION
  MATCH (n:Session {userId: $userId, id: item.id}) WHERE item.kind = 'session'
  RETURN n, null AS threadId
  UNION
  MATCH (n:Profile {userId: $userId}) WHERE item.kind = 'profile'
  RETURN n, null AS threadId
  UNION
  MATCH (n:Agent {userId: $userId, id: item.id}) WHERE item.kind = 'agent'
  RETURN n, null AS threadId
  UNION
  WITH item, split(item.id, ' ') AS parts WHERE item.kind = 'edge' AND size(parts) = 3
  MATCH (a:Knowledge {userId: $userId, id: parts[0]})-[n]->(b:Knowledge {userId: $userId, id: parts[2]})
  WHERE type(n) = $relTypes[parts[1]]
  RETURN n, null AS threadId
}
CALL (n, item) {
  UNWIND item.fields AS k
  WITH n, item, k WHERE n[k] IS NOT NULL
  SET n[k] = CASE
    WHEN item.kind = 'edge' THEN null
    WHEN k = 'data' THEN $forgottenData
    WHEN n[k] IS :: LIST<ANY> THEN [v IN n[k] WHERE item.remove IS NOT NULL AND NOT v IN item.remove]
    ELSE $forgotten
  END
}
WITH DISTINCT threadId WHERE threadId IS NOT NULL
MATCH (t:Thread {userId: $userId, id: threadId})
SET t.embedding = null, t.embeddingModel = null, t.embeddedSeq = null, t.notifyEmbedding = null, t.notifyModel = null
RETURN collect(t.id) AS threads
