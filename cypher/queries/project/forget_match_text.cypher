// Everything of a user that may hold a forget's $query (folded: graph/core/folding.py), kind
// by kind, with the fields a user writes ($fields, by kind): a field holds it when its
// text, or an item of its list, does by the caseless expression, or holds a character that
// expression cannot fold ($rare), which Python then decides. Each with its key (an edge's:
// "<source> <type> <target>", as the journal names it), its time (what before/after
// compare) and the fields that hold it with their values. Every criterion but the query is
// applied in Python; this reads every node of the user that has text, so it runs only for
// a match with a query. A payload (`data`, compact JSON text) is looked for by $jsonProbe (the
// query's longest stretch JSON writes unescaped), and Python decides on its keys and strings.
CALL () {
  MATCH (n:Knowledge) WHERE n.userId = $userId
  RETURN 'note' AS kind, n.id AS id, n.createdAt AS at, n AS n
  UNION ALL
  MATCH (k:Knowledge)-[:MERGED_FROM]->(n:MergedNote) WHERE k.userId = $userId
  RETURN 'note' AS kind, k.id AS id, k.createdAt AS at, n AS n
  UNION ALL
  MATCH (n:Insight) WHERE n.userId = $userId AND n.key IS NOT NULL
  RETURN 'insight' AS kind, n.id AS id, n.extractedAt AS at, n AS n
  UNION ALL
  MATCH (n:WikiPage) WHERE n.userId = $userId AND n.slug IS NOT NULL
  RETURN 'wikiPage' AS kind, n.slug AS id, n.savedAt AS at, n AS n
  UNION ALL
  MATCH (n:Goal) WHERE n.userId = $userId AND n.id IS NOT NULL
  RETURN 'goal' AS kind, n.id AS id, n.createdAt AS at, n AS n
  UNION ALL
  MATCH (n:Skill) WHERE n.userId = $userId AND n.id IS NOT NULL
  RETURN 'skill' AS kind, n.id AS id, n.createdAt AS at, n AS n
  UNION ALL
  MATCH (n:ToolCall) WHERE n.userId = $userId AND n.sessionId IS NOT NULL AND n.position IS NOT NULL
  RETURN 'toolCall' AS kind, n.sessionId + '#' + toString(n.position) AS id, n.at AS at, n AS n
  UNION ALL
  MATCH (n:PendingAction) WHERE n.userId = $userId AND n.id IS NOT NULL
  RETURN 'pendingAction' AS kind, n.id AS id, n.createdAt AS at, n AS n
  UNION ALL
  MATCH (n:Preference) WHERE n.userId = $userId AND n.name IS NOT NULL
  RETURN 'preference' AS kind, n.name AS id, n.setAt AS at, n AS n
  UNION ALL
  MATCH (n:AgentDoc) WHERE n.userId = $userId AND n.agentId IS NOT NULL
  RETURN 'agentDoc' AS kind, n.id AS id, null AS at, n AS n
  UNION ALL
  MATCH (n:Message) WHERE n.userId = $userId AND n.id IS NOT NULL
  RETURN 'message' AS kind, n.id AS id, n.createdAt AS at, n AS n
  UNION ALL
  MATCH (n:Thread) WHERE n.userId = $userId AND n.id IS NOT NULL
  RETURN 'thread' AS kind, n.id AS id, n.createdAt AS at, n AS n
  UNION ALL
  MATCH (n:Session) WHERE n.userId = $userId AND n.id IS NOT NULL
  RETURN 'session' AS kind, n.id AS id, n.startedAt AS at, n AS n
  UNION ALL
  MATCH (n:Profile) WHERE n.userId = $userId
  RETURN 'profile' AS kind, n.userId AS id, n.createdAt AS at, n AS n
  UNION ALL
  MATCH (n:Agent) WHERE n.userId = $userId AND n.id IS NOT NULL
  RETURN 'agent' AS kind, n.id AS id, n.createdAt AS at, n AS n
  UNION ALL
  MATCH (a:Knowledge)-[n]->(b:Knowledge)
  WHERE a.userId = $userId AND (n.note IS NOT NULL OR n.source IS NOT NULL)
  RETURN 'edge' AS kind, a.id + ' ' + $edgeNames[type(n)] + ' ' + b.id AS id, n.createdAt AS at, n AS n
}
WITH kind, id, at, [k IN $fields[kind] WHERE n[k] IS NOT NULL | [k, n[k]]] AS pairs
WITH kind, id, at, [p IN pairs WHERE any(v IN CASE WHEN p[1] IS :: LIST<ANY> THEN p[1] ELSE [p[1]] END
  WHERE v IS :: STRING
    AND (normalize(replace(replace(replace(toLower(normalize(v, NFKC)), 'ß', 'ss'), 'ς', 'σ'), 'ͅ', 'ι'), NFKC)
           CONTAINS CASE WHEN p[0] = 'data' THEN $jsonProbe ELSE $query END
         OR (NOT v =~ $low AND v =~ $rare)))] AS hits
WHERE size(hits) > 0
RETURN collect({kind: kind, id: id, at: at, values: hits}) AS rows
