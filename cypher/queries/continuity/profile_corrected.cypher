// A person's correction of what an agent wrote in the profile: the preferences $names (and
// the background, when $background) keep its id, so an agent's later write over them names
// the correction it challenges.
MATCH (p:Profile {userId: $userId})
SET p.backgroundCorrectionId = CASE WHEN $background THEN $correctionId ELSE p.backgroundCorrectionId END
WITH p
CALL (p) {
  MATCH (p)-[:PREFERS]->(f:Preference)
  WHERE f.name IN $names
  SET f.correctionId = $correctionId
}
RETURN p.userId AS userId
