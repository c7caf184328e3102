// The users holding corrections, in the order of their ids, after $after: the stored states'
// rewrite walks them user by user (graph/core/schema.py). Read from the (userId, id)
// index alone, in its order.
MATCH (c:Correction)
USING INDEX c:Correction(userId, id)
WHERE c.userId > $after AND c.id IS NOT NULL
RETURN DISTINCT c.userId AS userId
ORDER BY userId
LIMIT $limit
