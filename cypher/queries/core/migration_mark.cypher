// Mark the data step $name of migrate as carried out, once (the first mark's time is kept).
MERGE (d:Migration {name: $name})
ON CREATE SET d.doneAt = datetime()
RETURN d.name AS name
