"""The journal: every change of a user's memory as a ``Mutation``, in the same transaction.

A mutation records who (role, agent, key), what (an operation on a target) and the state
before and after, numbered by the write gate's sequence, so the journal's order is the
order in which the user's writes committed. It is written through :class:`Gated` only:
a write that fails leaves no mutation, and a mutation never exists without its write.
The profile is journaled today; the journal issue brings every other write path.
"""

from __future__ import annotations

import json
import uuid
from typing import Any

from graph.core.gate import Gated
from graph.core.principals import Principal


async def record(
    gated: Gated,
    principal: Principal,
    *,
    op: str,
    target_type: str,
    target_id: str,
    before: Any,
    after: Any,
) -> str:
    """Journal one change in ``gated``'s transaction; returns the mutation's id."""
    mutation_id = uuid.uuid4().hex
    await gated.run(
        "queries/core/mutation_record",
        id=mutation_id,
        seq=gated.seq,
        role=principal.role.value,
        agentId=principal.agent_id,
        keyId=principal.key_id,
        op=op,
        targetType=target_type,
        targetId=target_id,
        before=json.dumps(before, sort_keys=True) if before is not None else None,
        after=json.dumps(after, sort_keys=True) if after is not None else None,
    )
    return mutation_id
