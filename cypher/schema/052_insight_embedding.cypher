// Semantic recall of insights across sessions; the size follows the configured embedder.
// Full-precision vectors and the same HNSW build settings as notes (see 030).
CREATE VECTOR INDEX insight_embedding IF NOT EXISTS
FOR (i:Insight) ON i.embedding
OPTIONS {indexConfig: {
  `vector.dimensions`: toInteger($dimension),
  `vector.similarity_function`: 'cosine',
  `vector.quantization.enabled`: false,
  `vector.hnsw.m`: 16,
  `vector.hnsw.ef_construction`: 100
}}
