// The user's profile: background and preferences, each with who set it (and the person's
// correction of an agent's value, if that was the last write), for one promoted from
// conversation memory the insight it came from, and the names of preferences a person
// removed (an agent's write that brings one back waits for a person). No row: no profile.
MATCH (p:Profile)
WHERE p.userId = $userId
RETURN p {
  .background, .backgroundSetByRole, .backgroundSetByAgent, .backgroundCorrectionId,
  .removedByPerson, updatedAt: p.updatedAt.epochMillis,
  preferences: [(p)-[:PREFERS]->(f:Preference) | f {
    .name, .value, .insightId, .threadId, .setByRole, .setByAgent, .correctionId,
    setAt: f.setAt.epochMillis
  }]
} AS profile
