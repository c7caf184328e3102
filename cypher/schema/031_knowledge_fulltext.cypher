// Keyword search over notes (the fulltext half of hybrid search). tenantKey is a
// single-token digest of the userId, so a search is narrowed to one user inside Lucene.
// The english analyzer (stop words, possessives, Porter stemming) finds "deploys" for
// "deployment"; changing it here makes `migrate` rebuild the index (docs/retrieval.md).
CREATE FULLTEXT INDEX knowledge_fulltext IF NOT EXISTS
FOR (n:Knowledge) ON EACH [n.title, n.content, n.tenantKey]
OPTIONS {indexConfig: {`fulltext.analyzer`: 'english'}}
