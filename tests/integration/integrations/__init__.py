"""The framework integrations (ctxnet/integrations) against the real API and the frameworks' own classes."""
