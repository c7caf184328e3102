// Corrections: a person's update or delete of agent-written data. Unique per user.
CREATE CONSTRAINT correction_key IF NOT EXISTS
FOR (c:Correction) REQUIRE (c.userId, c.id) IS UNIQUE
