// One Tenant node per user: the per-user write gate locks it (see queries/core/gate_enter),
// and it keeps the user's write sequence and exact note count.
CREATE CONSTRAINT tenant_user IF NOT EXISTS
FOR (t:Tenant) REQUIRE t.userId IS UNIQUE
