// A thread id is unique within its user's conversations.
CREATE CONSTRAINT thread_key IF NOT EXISTS
FOR (t:Thread) REQUIRE (t.userId, t.id) IS UNIQUE
