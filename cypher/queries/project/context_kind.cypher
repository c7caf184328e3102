// What the notes $ids of a user are: project context of which kind (null for a plain note);
// ids with no note are left out.
MATCH (n:Knowledge)
WHERE n.userId = $userId AND n.id IN $ids
RETURN n.id AS id, n.kind AS kind, n.status AS status, coalesce(n.agents, []) AS agents,
       n.context AS context, coalesce(n.consequences, []) AS consequences, n.decidedOn AS date
