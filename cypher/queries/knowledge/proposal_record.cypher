// An agent's write that would change what a person wrote or corrected, waiting for a person;
// $changeKey names the change, so a rejected one is not proposed again.
CREATE (p:Proposal {
  userId: $userId, id: $id, seq: $seq, status: 'pending', op: $op, targetId: $targetId,
  payload: $payload, changeKey: $changeKey, fields: $fields, correctionIds: $correctionIds, role: $role,
  agentId: $agentId, keyId: $keyId, sessionId: $sessionId, createdAt: datetime()
})
WITH p
CALL (p) {
  MATCH (c:Correction {userId: $userId})
  WHERE c.id IN $correctionIds
  CREATE (p)-[:CHALLENGES]->(c)
}
RETURN p {.*, createdAt: p.createdAt.epochMillis} AS proposal
