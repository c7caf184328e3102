// Make a note this write created a project context entry: the ProjectContext label, its
// kind's own label ($label, from the allow-list in graph/project/models.py) and the fields
// of its kind (a decision's context, consequences and date; the agents it affects), and, for
// an entry a person recorded by approving an agent's proposal, who proposed it.
MATCH (n:Knowledge {userId: $userId, id: $id})
SET n:ProjectContext, n:$($label),
    n.kind = $kind, n.context = $context, n.consequences = $consequences, n.decidedOn = $date,
    n.agents = $agents, n.proposedByRole = $proposedByRole, n.proposedByAgent = $proposedByAgent
RETURN n.id AS id
