// The names of a user's preferences (a ledger's replay finds those it names by a hash).
MATCH (p:Preference)
WHERE p.userId = $userId AND p.name IS NOT NULL
RETURN p.name AS name
