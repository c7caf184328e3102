"""Every error the domain can raise, in one tree.

``ContextNetworkError``
    ``InvalidInput``          bad input the caller can fix (HTTP 422); names the field
    ``NotFound``              the thing does not exist for this user (404)
    ``Conflict``              the write clashes with existing data (409)
    ``Unauthenticated``       no API key, or a key that is unknown or revoked (401)
    ``Forbidden``             the principal may not do this (403)
    ``DatabaseUnavailable``   Neo4j cannot be reached right now (503); retry later
    ``SchemaMismatch``        the database schema does not fit this build (503 / fatal)
    ``EmbeddingError``        the embedder failed (502)
    ``Neo4jRuntimeError``     the local Neo4j runtime could not be fetched/started/stopped

Neo4j driver exceptions are translated into these at the repository boundary
(``graph.core.db``); HTTP status codes are assigned only by the handlers in ``api.errors``.
"""

from __future__ import annotations


class ContextNetworkError(Exception):
    """Base of every Context Network error; ``code`` is the stable machine-readable name."""

    code = "internal_error"

    def __init__(self, message: str, *, field: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.field = field


class InvalidInput(ContextNetworkError):
    """The input breaks a rule; ``field`` names the offending field."""

    code = "invalid_input"


class NotFound(ContextNetworkError):
    """The requested thing does not exist (or belongs to someone else)."""

    code = "not_found"


class Conflict(ContextNetworkError):
    """The write clashes with existing data; ``blocking_mutation`` names the journal entry
    that stands in the way, when one does (an undo that later writes make unsafe)."""

    code = "conflict"

    def __init__(
        self, message: str, *, field: str | None = None, blocking_mutation: str | None = None
    ) -> None:
        super().__init__(message, field=field)
        self.blocking_mutation = blocking_mutation


class Unauthenticated(ContextNetworkError):
    """No credentials, or credentials that resolve to no principal."""

    code = "unauthenticated"


class Forbidden(ContextNetworkError):
    """The principal is known but may not do this."""

    code = "forbidden"


class RateLimited(ContextNetworkError):
    """The key sent more requests than its limit allows; ``retry_after`` says when to try again."""

    code = "rate_limited"

    def __init__(self, message: str, *, retry_after: int) -> None:
        super().__init__(message)
        self.retry_after = retry_after


class DatabaseUnavailable(ContextNetworkError):
    """Neo4j cannot be reached; the request may be retried later."""

    code = "database_unavailable"


class SchemaMismatch(ContextNetworkError):
    """The schema in Neo4j does not fit this build (e.g. a vector index of another size)."""

    code = "schema_mismatch"


class EmbeddingError(ContextNetworkError):
    """The embedder could not produce vectors."""

    code = "embedding_failed"


class Neo4jRuntimeError(ContextNetworkError):
    """The local Neo4j runtime could not be fetched, started or stopped."""

    code = "neo4j_runtime_error"
