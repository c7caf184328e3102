// An insight is identified by what it says and where it came from, so re-extraction
// of the same messages never duplicates it.
CREATE CONSTRAINT insight_key IF NOT EXISTS
FOR (i:Insight) REQUIRE (i.userId, i.key) IS UNIQUE
