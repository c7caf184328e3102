"""A user's tenant key: one Lucene token standing for the user in the fulltext indexes, so a
keyword search is narrowed to one user inside Lucene (``+tenantKey:<key>``)."""

from __future__ import annotations

import hashlib


def tenant_key(user_id: str) -> str:
    """A single Lucene token standing for the user (letters and digits only)."""
    return "t" + hashlib.sha256(user_id.encode("utf-8")).hexdigest()[:24]
