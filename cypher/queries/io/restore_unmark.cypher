// Take the restore's marks off up to $limit of its nodes (the label and the ref); the
// restore ends once none is left.
MATCH (n:Restoring) WHERE n.userId = $userId
WITH n LIMIT $limit
REMOVE n:Restoring, n.restoreRef
RETURN count(n) AS unmarked
