// Constraints by name, for the readiness check.
SHOW CONSTRAINTS YIELD name, type
RETURN name, type
