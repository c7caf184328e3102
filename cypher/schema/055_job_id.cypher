// Background jobs (extraction, feedback loop) live in Neo4j, so any replica can report them.
CREATE CONSTRAINT job_id IF NOT EXISTS
FOR (j:Job) REQUIRE j.id IS UNIQUE
