// A message id is unique within its user's messages (appends are idempotent by it).
CREATE CONSTRAINT message_key IF NOT EXISTS
FOR (m:Message) REQUIRE (m.userId, m.id) IS UNIQUE
