// One goal per (user, id); also how a user's goal stack is read (userId first).
CREATE CONSTRAINT goal_key IF NOT EXISTS
FOR (g:Goal) REQUIRE (g.userId, g.id) IS UNIQUE
