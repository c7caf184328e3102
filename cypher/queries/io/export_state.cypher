// Where a user's journal stands (their write sequence) and whether a restore is under way:
// an export's pages must all be read at one sequence.
OPTIONAL MATCH (t:Tenant {userId: $userId})
RETURN coalesce(t.seq, 0) AS seq, t.restoring AS restoring,
  [k IN keys(t) | {key: k, type: valueType(t[k]),
                   value: CASE WHEN valueType(t[k]) IN $temporal THEN toString(t[k]) ELSE t[k] END}] AS properties
