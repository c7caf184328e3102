"""The judge under test: an OpenAI-compatible stub that answers the judge's questions by rule
(through the real ``openai`` client), and waiting on a user's judge jobs."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from graph.core.db import Database
from tests.integration.conftest import Caller, inspect
from tests.support.jobs import finished
from tests.support.openai_stub import OpenAIStub, chat_answer

#: The chat model the judge's API process is configured with (its pipeline: judge:llm:<it>).
MODEL = "stub-judge"


class JudgeStub(OpenAIStub):
    """Answers a pair ``verdicts[word]`` when the new note holds ``word`` (else ``resembles``),
    and a thread ``affected`` when its text holds one of ``affected`` (else ``unaffected``);
    ``script`` (status, body) answers come first, as in :class:`OpenAIStub`."""

    def __init__(self) -> None:
        super().__init__()
        self.verdicts: dict[str, str] = {}
        self.affected: set[str] = set()

    def _default_answer(self, path: str, body: dict[str, Any]) -> dict[str, Any]:
        if not path.endswith("/chat/completions"):
            return super()._default_answer(path, body)
        document = json.loads(next(m["content"] for m in body["messages"] if m["role"] == "user"))
        answers = []
        for item in document["items"]:
            if "new" in item:
                said = f"{item['new']['title']}\n{item['new']['content']}"
                label = next((v for k, v in self.verdicts.items() if k in said), "resembles")
            else:
                hit = any(word in item["conversation"] for word in self.affected)
                label = "affected" if hit else "unaffected"
            answers.append({"id": item["id"], "label": label})
        return chat_answer(json.dumps({"answers": answers}))

    def asked(self) -> str:
        """Every document the judge sent, as one text (to look for what it must never read)."""
        return "\n".join(
            json.dumps(r["body"]) for r in self.requests if r["path"].endswith("/chat/completions")
        )


def judge_env(stub: JudgeStub) -> dict[str, str]:
    """An API process whose judge asks ``stub``, half a second after a create."""
    return {
        "CTXNET_API_KEY_CACHE_SECONDS": "0",
        "CTXNET_LLM_MODEL": MODEL,
        "CTXNET_LLM_BASE_URL": stub.base_url,
        "CTXNET_LLM_API_KEY": "test",
        "CTXNET_LLM_MAX_RETRIES": "0",
        "CTXNET_LLM_JUDGE_DELAY_SECONDS": "0.5",
    }


async def judge_jobs(db: Database, user_id: str) -> list[dict[str, Any]]:
    """The user's judge jobs, oldest first."""
    return await inspect(
        db,
        "MATCH (j:Job {userId: $userId}) WHERE j.kind = 'maintenance:judge' "
        "RETURN j.id AS id, j.status AS status ORDER BY j.createdAt",
        userId=user_id,
    )


async def judged(
    db: Database, caller: Caller, http: Any, count: int = 1, timeout: float = 60.0
) -> dict[str, Any]:
    """The user's ``count``-th judge job, once it ended (as ``GET /v1/jobs/{id}`` shows it)."""
    for _ in range(int(timeout / 0.1)):
        jobs = await judge_jobs(db, caller.user_id)
        if len(jobs) >= count:
            return await finished(http, jobs[count - 1]["id"], timeout)
        await asyncio.sleep(0.1)
    raise AssertionError(f"no judge job {count} for {caller.user_id} within {timeout}s")
