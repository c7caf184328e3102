// Write the user's profile as a whole: background, and exactly the preferences in
// $preferences ({name, value, insightId, threadId}); those not listed are deleted, those
// whose value and source did not change keep when and by whom they were set (and the
// correction that set them). A changed background records who wrote it ($backgroundChanged);
// $removed is the names of preferences a person removed, kept on the profile.
MERGE (p:Profile {userId: $userId})
  ON CREATE SET p.createdAt = datetime()
SET p.background = $background, p.updatedAt = datetime(), p.removedByPerson = $removed
SET p += CASE WHEN $backgroundChanged THEN {
  backgroundSetByRole: $role, backgroundSetByAgent: $agentId, backgroundCorrectionId: null
} ELSE {} END
WITH p
CALL (p) {
  MATCH (p)-[:PREFERS]->(old:Preference)
  WHERE NOT old.name IN [f IN $preferences | f.name]
  DETACH DELETE old
}
CALL (p) {
  UNWIND $preferences AS f
  MERGE (pref:Preference {userId: $userId, name: f.name})
  WITH p, f, pref,
       pref.value IS NULL OR pref.value <> f.value OR coalesce(pref.insightId, '') <> coalesce(f.insightId, '') AS changed
  SET pref += CASE WHEN changed THEN {
    value: f.value, insightId: f.insightId, threadId: f.threadId,
    setAt: datetime(), setByRole: $role, setByAgent: $agentId, correctionId: null
  } ELSE {} END
  MERGE (p)-[:PREFERS]->(pref)
  WITH pref, f, changed
  CALL (pref, f, changed) {
    WITH pref, f, changed WHERE changed
    OPTIONAL MATCH (pref)-[old:PROMOTED_FROM]->(:Insight)
    DELETE old
    WITH DISTINCT pref, f
    MATCH (i:Insight)
    WHERE i.userId = $userId AND i.threadId = f.threadId AND i.id = f.insightId
    CREATE (pref)-[:PROMOTED_FROM]->(i)
  }
}
RETURN p.userId AS userId
