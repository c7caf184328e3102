// Thread topics by meaning: a new architectural decision finds the conversations it may
// affect through it (graph/project/decisions.py).
CREATE VECTOR INDEX thread_topic_embedding IF NOT EXISTS
FOR (t:Thread) ON t.embedding
OPTIONS {indexConfig: {
  `vector.dimensions`: toInteger($dimension),
  `vector.similarity_function`: 'cosine',
  `vector.quantization.enabled`: false,
  `vector.hnsw.m`: 16,
  `vector.hnsw.ef_construction`: 100
}}
