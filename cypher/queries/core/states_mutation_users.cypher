// The users holding journal entries, in the order of their ids, after $after: the stored states'
// rewrite walks them user by user (graph/core/schema.py). Read from the (userId, id)
// index alone, in its order.
MATCH (m:Mutation)
USING INDEX m:Mutation(userId, id)
WHERE m.userId > $after AND m.id IS NOT NULL
RETURN DISTINCT m.userId AS userId
ORDER BY userId
LIMIT $limit
