// Keyword recall of insights (the fulltext half of hybrid recall), narrowed to one user by
// tenantKey inside Lucene like notes (031); the same english analyzer.
CREATE FULLTEXT INDEX insight_fulltext IF NOT EXISTS
FOR (i:Insight) ON EACH [i.content, i.tenantKey]
OPTIONS {indexConfig: {`fulltext.analyzer`: 'english'}}
