// The goals, skills and pending actions a forget names by id ($ids, each found through its
// key), with their time (what before/after compare) and the fields that may hold a query
// (forget_plan.FIELDS), and which of $ids name anything of the user that lives (a note, an
// insight, a thread, a wiki page by slug, or one of these): the traces of a named id whose
// thing is gone are the run's, those of one that lives only with the thing.
UNWIND $ids AS key
CALL (key) {
  MATCH (n:Goal {userId: $userId, id: key})
  RETURN 'goal' AS kind, n.createdAt AS at
  UNION
  MATCH (n:Skill {userId: $userId, id: key})
  RETURN 'skill' AS kind, n.createdAt AS at
  UNION
  MATCH (n:PendingAction {userId: $userId, id: key})
  RETURN 'pendingAction' AS kind, n.createdAt AS at
  UNION
  MATCH (n:Knowledge {userId: $userId, id: key})
  RETURN 'note' AS kind, n.createdAt AS at
  UNION
  MATCH (n:Insight {userId: $userId, id: key})
  RETURN 'insight' AS kind, n.extractedAt AS at
  UNION
  MATCH (n:Thread {userId: $userId, id: key})
  RETURN 'thread' AS kind, n.createdAt AS at
  UNION
  MATCH (n:WikiPage {userId: $userId, slug: key})
  RETURN 'wikiPage' AS kind, n.savedAt AS at
}
RETURN collect({kind: kind, id: key, at: at}) AS rows
