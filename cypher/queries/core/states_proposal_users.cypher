// The users holding proposals, in the order of their ids, after $after: the stored states'
// rewrite walks them user by user (graph/core/schema.py). Read from the (userId, id)
// index alone, in its order.
MATCH (p:Proposal)
USING INDEX p:Proposal(userId, id)
WHERE p.userId > $after AND p.id IS NOT NULL
RETURN DISTINCT p.userId AS userId
ORDER BY userId
LIMIT $limit
