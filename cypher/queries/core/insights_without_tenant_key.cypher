// Users with insights stored before insights carried their tenant key (the keyword half of
// recall cannot find those); migrate gives them one, user by user.
MATCH (i:Insight)
WHERE i.tenantKey IS NULL
RETURN DISTINCT i.userId AS userId
LIMIT $limit
