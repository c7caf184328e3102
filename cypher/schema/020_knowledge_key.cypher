// A note id is unique within its user's network (two users may both have "note-1").
CREATE CONSTRAINT knowledge_key IF NOT EXISTS
FOR (n:Knowledge) REQUIRE (n.userId, n.id) IS UNIQUE
