// How many stored vectors of each kind another model made than the configured one: the API
// refuses to start on them, since one model's vectors mean nothing to another's queries.
CALL () {
  MATCH (n:Knowledge) WHERE n.embeddingModel <> $model
  RETURN 'notes' AS kind, n.embeddingModel AS model, count(*) AS count
  UNION ALL
  MATCH (i:Insight) WHERE i.embeddingModel <> $model
  RETURN 'insights' AS kind, i.embeddingModel AS model, count(*) AS count
  UNION ALL
  MATCH (w:WikiPage) WHERE w.embeddingModel <> $model
  RETURN 'saved pages' AS kind, w.embeddingModel AS model, count(*) AS count
  UNION ALL
  MATCH (c:Correction) WHERE c.embeddingModel <> $model
  RETURN 'corrections' AS kind, c.embeddingModel AS model, count(*) AS count
  UNION ALL
  MATCH (t:Thread) WHERE t.embeddingModel <> $model
  RETURN 'thread topics' AS kind, t.embeddingModel AS model, count(*) AS count
  UNION ALL
  MATCH (d:AgentDoc) WHERE d.embeddingModel <> $model
  RETURN 'agent docs' AS kind, d.embeddingModel AS model, count(*) AS count
}
RETURN kind, model, count
ORDER BY count DESC, kind, model
