// Semantic search over notes; the size follows the configured embedder.
CREATE VECTOR INDEX knowledge_embedding IF NOT EXISTS
FOR (n:Knowledge) ON n.embedding
OPTIONS {indexConfig: {
  `vector.dimensions`: toInteger($dimension),
  `vector.similarity_function`: 'cosine'
}}
