// Make a note this write created a project context entry: the ProjectContext label, its
// kind's own label ($label, from the allow-list in graph/project/models.py) and the fields
// of its kind (a decision's context, consequences and date; the agents it affects).
MATCH (n:Knowledge {userId: $userId, id: $id})
SET n:ProjectContext, n:$($label),
    n.kind = $kind, n.context = $context, n.consequences = $consequences, n.decidedOn = $date,
    n.agents = $agents
RETURN n.id AS id
