// One skill per (user, id); also how a user's skills are listed (userId first, by id).
CREATE CONSTRAINT skill_key IF NOT EXISTS
FOR (s:Skill) REQUIRE (s.userId, s.id) IS UNIQUE
