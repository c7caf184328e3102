// The agents a user's project has: those that ran a session or have documentation.
MATCH (a:Agent)
WHERE a.userId = $userId
RETURN a.id AS id
ORDER BY id
