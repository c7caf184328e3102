// What holds edges against an agent's connect or disconnect: for each row (an edge by its
// ends and type; $rows[i].keys its journal ids, both ways for conflictsWith), whether it
// stands now, whether a person made it or confirmed it (their word: it stands), and the
// newest active correction of a person's that removed it (their word: it does not).
UNWIND $rows AS row
OPTIONAL MATCH (a:Knowledge {userId: $userId, id: row.sourceId})-[r:$(row.relType)]-(b:Knowledge {userId: $userId, id: row.targetId})
WHERE startNode(r) = a OR row.relType = 'CONFLICTS_WITH'
WITH row, collect(r) AS found
RETURN row.index AS index, size(found) > 0 AS stands,
  any(r IN found WHERE r.createdByRole = 'human' OR r.confirmedByPerson = true) AS personSaid,
  COLLECT {
    UNWIND row.keys AS key
    MATCH (c:Correction {userId: $userId, targetId: key})
    WHERE c.status = 'active' AND c.targetType = 'Edge' AND c.kind = 'delete'
    RETURN c.id ORDER BY c.seq DESC LIMIT 1
  } AS removedBy
