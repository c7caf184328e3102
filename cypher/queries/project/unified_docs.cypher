// The docs layer of unified search: a user's active project context entries and agent
// documentation lines most similar to the query ($vector, Neo4j's normalised cosine), at
// most $limit. Exact: a project holds thousands of these, not millions. An entry whose validity
// ended by $validAt is left out (what is true now). One list (db.listed).
CALL () {
  MATCH (n:ProjectContext)
  WHERE n.userId = $userId AND n.kind IN ['decision', 'pattern', 'constraint']
    AND n.status = 'active' AND (n.validUntil IS NULL OR n.validUntil > $validAt)
  RETURN 'note' AS what, n.id AS id, vector.similarity.cosine(n.embedding, $vector) AS score
  UNION ALL
  MATCH (d:AgentDoc)
  WHERE d.userId = $userId AND d.agentId IS NOT NULL
  RETURN 'agentDoc' AS what, d.id AS id, vector.similarity.cosine(d.embedding, $vector) AS score
}
WITH what, id, score
ORDER BY score DESC, id
LIMIT $limit
RETURN collect({what: what, id: id, score: score}) AS rows
