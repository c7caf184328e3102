// A profile's preferences, one node each: (:Profile)-[:PREFERS]->(:Preference), and
// (:Preference)-[:PROMOTED_FROM]->(:Insight) for one promoted from conversation memory.
CREATE CONSTRAINT preference_key IF NOT EXISTS
FOR (p:Preference) REQUIRE (p.userId, p.name) IS UNIQUE
