// When each actor of a user (an agent, or a person's key) last called catch_up: one node
// per actor, its third cutoff tier.
CREATE CONSTRAINT access_key IF NOT EXISTS
FOR (a:Access) REQUIRE (a.userId, a.actor) IS UNIQUE
