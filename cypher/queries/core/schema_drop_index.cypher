// Drops a vector index so it is recreated: by `ctxnet db reembed` (wrong size) and by
// `ctxnet db migrate` (settings that differ from cypher/schema).
DROP INDEX $name IF EXISTS
