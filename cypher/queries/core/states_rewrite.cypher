// Write stored states back as graph/core/states.py writes them: each row names a node (its
// element id), the property ($rows' key: one of graph/core/states.py's STATE_PROPERTIES),
// the text read and the text to write. A property that changed since it was read (a
// forget scrubbed it meanwhile) is left as it is now.
UNWIND $rows AS row
MATCH (n)
WHERE elementId(n) = row.ref AND n[row.key] = row.old
SET n[row.key] = row.new
RETURN count(n) AS rewritten
