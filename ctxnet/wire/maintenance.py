"""Request bodies of maintenance: how a task runs (a dry run; the age for archiving)."""

from __future__ import annotations

from pydantic import Field

from ctxnet.wire.base import CamelModel

#: The longest age ``olderThanDays`` may name (a hundred years).
MAX_OLDER_THAN_DAYS = 36_500


class MaintenanceIn(CamelModel):
    """How to run a maintenance task (all optional)."""

    dry_run: bool = Field(default=False, description="Report what the task would change, and change nothing.")
    older_than_days: int | None = Field(
        default=None,
        ge=0,
        le=MAX_OLDER_THAN_DAYS,
        description="archive-superseded only: archive decisions superseded more than this many days "
        "ago (default: CTXNET_MAINTENANCE_ARCHIVE_OLDER_THAN_DAYS, 90).",
    )
