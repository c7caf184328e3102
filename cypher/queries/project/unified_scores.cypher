// Unified search's one ranking: every candidate of every layer (notes, insights, agent
// documentation lines, by id) scored by the same measure, its exact similarity to the query
// ($vector, Neo4j's normalised cosine), with what the API shows of it. A note that is
// project context says so (`project`): it belongs to the docs layer. One list (db.listed).
CALL () {
  UNWIND $noteIds AS noteId
  MATCH (n:Knowledge {userId: $userId, id: noteId})
  RETURN 'note' AS what, n.id AS id, vector.similarity.cosine(n.embedding, $vector) AS score,
         n:ProjectContext AS project, n {
           .id, .title, .content, .type, .source, .confidence, .status, .tags, .sourceRef, .kind,
           .decidedOn, .agents, createdAt: n.createdAt.epochMillis, updatedAt: n.updatedAt.epochMillis
         } AS item
  UNION ALL
  UNWIND $insightIds AS insightId
  MATCH (i:Insight)
  WHERE i.userId = $userId AND i.id = insightId
  RETURN 'insight' AS what, i.id AS id, vector.similarity.cosine(i.embedding, $vector) AS score,
         false AS project, i {
           .id, .threadId, .sessionId, .type, .content, .confidence, extractedAt: i.extractedAt.epochMillis
         } AS item
  UNION ALL
  UNWIND $docIds AS docId
  MATCH (d:AgentDoc)
  WHERE d.userId = $userId AND d.agentId IS NOT NULL AND d.id = docId
  RETURN 'agentDoc' AS what, d.id AS id, vector.similarity.cosine(d.embedding, $vector) AS score,
         true AS project, d {.id, .agentId, .kind, .text} AS item
}
RETURN collect({what: what, id: id, score: score, project: project, item: item}) AS rows
