// Semantic recall of insights across sessions; the size follows the configured embedder.
CREATE VECTOR INDEX insight_embedding IF NOT EXISTS
FOR (i:Insight) ON i.embedding
OPTIONS {indexConfig: {
  `vector.dimensions`: toInteger($dimension),
  `vector.similarity_function`: 'cosine'
}}
