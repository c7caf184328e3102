"""Response bodies of the service itself: the principal behind a key."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict
from pydantic.alias_generators import to_camel


class PrincipalOut(BaseModel):
    """The caller, as the API sees it."""

    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True)

    user_id: str
    role: str
    agent_id: str | None
    key_id: str | None
