// Whether the data step $name of migrate was carried out (see queries/core/migration_mark).
OPTIONAL MATCH (d:Migration {name: $name})
RETURN d IS NOT NULL AS done
