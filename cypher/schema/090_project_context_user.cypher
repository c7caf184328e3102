// A user's project context (architecture decisions, patterns, constraints: notes that also
// carry the ProjectContext label), found by kind.
CREATE INDEX project_context_user IF NOT EXISTS
FOR (n:ProjectContext) ON (n.userId, n.kind)
