"""Request and response bodies of the user profile: preferences, background, and where each
preference came from."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field, StringConstraints

from ctxnet.wire.base import CamelModel, Id, JsonBounds, OutModel

#: A preference's value: a JSON scalar (strings at most 2,000 characters).
PreferenceValue = Annotated[str, StringConstraints(max_length=2_000)] | bool | int | float


#: The preferences as sent, checked as free-form JSON before their names and values are
#: (keys and strings UTF-8, integers within 64 bits, finite numbers): 200 of them fit.
PREFERENCE_BOUNDS = JsonBounds(max_depth=2, max_bytes=512_000)


class PreferenceSourceOut(OutModel):
    """Where a preference came from."""

    insight_id: str | None = Field(default=None, description="The insight it was promoted from.")
    thread_id: str | None = None
    set_by_role: str | None = None
    set_by_agent: str | None = None
    set_at: str | None = None


class ProfileOut(OutModel):
    """The user profile (tier-3 memory)."""

    preferences: dict[str, PreferenceValue]
    background: str | None = None
    sources: dict[str, PreferenceSourceOut] = Field(description="Per preference: who set it, from what.")
    updated_at: str | None = None


PreferenceName = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=100)]


class ProfileIn(CamelModel):
    """The whole profile."""

    preferences: Annotated[dict[PreferenceName, PreferenceValue], PREFERENCE_BOUNDS] = Field(
        default_factory=dict, max_length=200
    )
    background: str | None = Field(default=None, max_length=8_000)


class ProfilePatchIn(CamelModel):
    """Changes to the profile: a preference set to null is removed; background only if given."""

    preferences: Annotated[dict[PreferenceName, PreferenceValue | None], PREFERENCE_BOUNDS] = Field(
        default_factory=dict, max_length=200
    )
    background: str | None = Field(default=None, max_length=8_000)


class PromoteIn(CamelModel):
    """Preference insights to promote into the profile."""

    insight_ids: list[Id] = Field(min_length=1, max_length=100)
    names: dict[str, PreferenceName] = Field(
        default_factory=dict, description="insightId → preference name; else named after what it states."
    )
