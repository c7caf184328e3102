// Keyword search over notes (the fulltext half of hybrid search).
CREATE FULLTEXT INDEX knowledge_fulltext IF NOT EXISTS
FOR (n:Knowledge) ON EACH [n.title, n.content]
