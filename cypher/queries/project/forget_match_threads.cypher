// The threads a forget names by id, each with its topic (the dry run's sample) and the ids
// of its messages (they go with it).
MATCH (t:Thread)
WHERE t.userId = $userId AND t.id IN $ids
RETURN t.id AS id, t.topic AS title, [(t)-[:HAS_MESSAGE]->(m:Message) | m.id] AS messages
ORDER BY id
