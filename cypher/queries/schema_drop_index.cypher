// Used only by `ctxnet db reembed` to replace a vector index of the wrong size.
DROP INDEX $name IF EXISTS
