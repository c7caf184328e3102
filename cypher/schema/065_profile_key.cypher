// The user profile (tier-3 memory): one per user.
CREATE CONSTRAINT profile_key IF NOT EXISTS
FOR (p:Profile) REQUIRE p.userId IS UNIQUE
