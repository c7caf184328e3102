// Semantic recall of insights across sessions; the size follows the configured embedder.
// Full-precision vectors, as for notes: the index's scores are exact cosines.
CREATE VECTOR INDEX insight_embedding IF NOT EXISTS
FOR (i:Insight) ON i.embedding
OPTIONS {indexConfig: {
  `vector.dimensions`: toInteger($dimension),
  `vector.similarity_function`: 'cosine',
  `vector.quantization.enabled`: false
}}
