// Indexes and their state, for readiness and dimension checks.
SHOW INDEXES YIELD name, type, state, labelsOrTypes, properties, options
RETURN name, type, state, labelsOrTypes, properties, options
