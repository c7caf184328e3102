// Deduplication history: which creates were folded into which note, and how similar they were.
// :param userId => 'dev'
MATCH (n:Knowledge {userId: $userId})-[:MERGED_FROM]->(m:MergedNote)
RETURN n.title AS note, m.requestedId AS requestedId, m.title AS mergedTitle,
       m.similarity AS similarity, m.mergedAt AS mergedAt, n, m
ORDER BY mergedAt DESC
