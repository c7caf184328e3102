// The data steps `ctxnet db migrate` has carried out, one Migration node each (not a user's
// memory: no userId), so a step that rewrites stored data runs once, not at every start-up
// (graph/core/schema.py). One node per step, however many processes start together.
CREATE CONSTRAINT migration_name IF NOT EXISTS
FOR (d:Migration) REQUIRE d.name IS UNIQUE
