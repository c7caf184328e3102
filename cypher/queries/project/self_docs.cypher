// What an agent finds when it asks about itself: its capabilities; the active decisions
// that affect it (naming it, or no agent); the active constraints that affect it and its
// own constraints. Each list is ranked by similarity to the question ($vector, Neo4j's
// normalised cosine) and holds at most $limit; without a question ($vector null), in the
// written order, the newest decisions and constraints first.
CALL () {
  MATCH (d:AgentDoc)
  WHERE d.userId = $userId AND d.agentId = $agentId AND d.kind = 'capability'
  WITH d, CASE WHEN $vector IS NULL THEN null ELSE vector.similarity.cosine(d.embedding, $vector) END AS score
  ORDER BY score DESC, d.position
  LIMIT $limit
  RETURN collect({text: d.text, score: score}) AS capabilities
}
CALL () {
  MATCH (n:ProjectContext)
  WHERE n.userId = $userId AND n.kind = 'decision' AND n.status = 'active'
    AND (size(n.agents) = 0 OR $agentId IN n.agents)
  WITH n, CASE WHEN $vector IS NULL THEN null ELSE vector.similarity.cosine(n.embedding, $vector) END AS score
  ORDER BY score DESC, n.decidedOn DESC, n.createdAt DESC, n.id
  LIMIT $limit
  RETURN collect({id: n.id, title: n.title, decision: n.content, date: n.decidedOn, score: score}) AS decisions
}
CALL () {
  CALL () {
    MATCH (n:ProjectContext)
    WHERE n.userId = $userId AND n.kind = 'constraint' AND n.status = 'active'
      AND (size(n.agents) = 0 OR $agentId IN n.agents)
    RETURN n.id AS id, n.title AS title, n.content AS text, n.embedding AS embedding,
           n.decidedOn + '|' + toString(n.createdAt.epochMillis) AS recency
    UNION ALL
    MATCH (d:AgentDoc)
    WHERE d.userId = $userId AND d.agentId = $agentId AND d.kind = 'constraint'
    RETURN null AS id, null AS title, d.text AS text, d.embedding AS embedding, '' AS recency
  }
  WITH id, title, text, recency,
       CASE WHEN $vector IS NULL THEN null ELSE vector.similarity.cosine(embedding, $vector) END AS score
  ORDER BY score DESC, recency DESC, text
  LIMIT $limit
  RETURN collect({id: id, title: title, text: text, score: score}) AS constraints
}
RETURN capabilities, decisions, constraints
