// The user's profile: background and preferences, each preference with who set it and,
// for one promoted from conversation memory, the insight it came from. No row: no profile.
MATCH (p:Profile)
WHERE p.userId = $userId
RETURN p {
  .background, updatedAt: p.updatedAt.epochMillis,
  preferences: [(p)-[:PREFERS]->(f:Preference) | f {
    .name, .value, .insightId, .threadId, .setByRole, .setByAgent, setAt: f.setAt.epochMillis
  }]
} AS profile
