"""Insight extractors: the offline rules, and the LLM through a local OpenAI-compatible stub."""

from __future__ import annotations

import json

import pytest

from graph.conversations.extractors import ExtractionFailed, LLMExtractor, RuleExtractor, ThreadMessage
from graph.conversations.models import InsightType
from tests.support.openai_stub import OpenAIStub, chat_answer

MESSAGES = [
    ThreadMessage("m1", "user", "I prefer dark mode in every editor. I work at TechCorp as a data engineer."),
    ThreadMessage("m2", "assistant", "Noted. Anything else?"),
    ThreadMessage(
        "m3", "user", "We decided to use Postgres for billing. How should we back up the database?"
    ),
    ThreadMessage("m4", "system", "I prefer nothing; system prompts are not the user."),
]


async def test_rules_catch_the_common_phrasings_with_lower_confidence() -> None:
    found = await RuleExtractor().extract(MESSAGES)
    by_type = {i.type: i for i in found}
    assert set(by_type) == {
        InsightType.PREFERENCE,
        InsightType.FACT,
        InsightType.DECISION,
        InsightType.QUESTION,
    }
    assert by_type[InsightType.PREFERENCE].message_id == "m1"
    assert "dark mode" in by_type[InsightType.PREFERENCE].content
    assert "TechCorp" in by_type[InsightType.FACT].content
    assert by_type[InsightType.DECISION].message_id == "m3"
    assert by_type[InsightType.QUESTION].content.endswith("?")
    assert all(i.confidence < 0.8 for i in found)
    assert all(i.message_id != "m4" for i in found)
    assert RuleExtractor().name == "rules-v1"


async def test_rules_ignore_small_talk() -> None:
    assert await RuleExtractor().extract([ThreadMessage("x", "user", "Thanks, that works. Bye!")]) == []


GOOD = json.dumps(
    {
        "insights": [
            {"type": "preference", "content": "Prefers dark mode", "confidence": 0.9, "messageId": "m1"}
        ]
    }
)


def _llm(stub: OpenAIStub, retries: int = 2) -> LLMExtractor:
    return LLMExtractor(
        model="stub-model", base_url=stub.base_url, api_key="k", max_retries=retries, backoff_seconds=0.01
    )


async def test_llm_good_json() -> None:
    with OpenAIStub() as stub:
        stub.script.append((200, chat_answer(GOOD)))
        [insight] = await _llm(stub).extract(MESSAGES)
    assert insight.type == InsightType.PREFERENCE and insight.confidence == 0.9 and insight.message_id == "m1"
    request = stub.requests[0]["body"]
    assert request["model"] == "stub-model"
    assert request["response_format"] == {"type": "json_object"}
    assert "[m3] user: We decided" in request["messages"][1]["content"]


async def test_llm_invalid_json_is_re_asked_once_with_the_error() -> None:
    with OpenAIStub() as stub:
        stub.script.append((200, chat_answer('{"insights": [{"type": "opinion"}]}')))
        stub.script.append((200, chat_answer(GOOD)))
        [insight] = await _llm(stub).extract(MESSAGES)
    assert insight.content == "Prefers dark mode"
    assert len(stub.requests) == 2
    follow_up = stub.requests[1]["body"]["messages"][-1]["content"]
    assert "invalid" in follow_up and "type" in follow_up


async def test_llm_invalid_twice_fails_with_the_reason() -> None:
    with OpenAIStub() as stub:
        stub.script.extend([(200, chat_answer("not json")), (200, chat_answer("still not json"))])
        with pytest.raises(ExtractionFailed, match="did not validate twice"):
            await _llm(stub).extract(MESSAGES)


async def test_llm_unknown_message_ids_are_rejected() -> None:
    bad = json.dumps(
        {"insights": [{"type": "fact", "content": "Invented", "confidence": 0.9, "messageId": "zzz"}]}
    )
    with OpenAIStub() as stub:
        stub.script.extend([(200, chat_answer(bad)), (200, chat_answer(GOOD))])
        [insight] = await _llm(stub).extract(MESSAGES)
    assert insight.message_id == "m1"
    assert "zzz" in stub.requests[1]["body"]["messages"][-1]["content"]


async def test_llm_429_is_retried_then_succeeds() -> None:
    with OpenAIStub() as stub:
        stub.script.append((429, {"error": {"message": "slow down"}}))
        stub.script.append((200, chat_answer(GOOD)))
        found = await _llm(stub).extract(MESSAGES)
    assert len(found) == 1 and len(stub.requests) == 2


async def test_llm_500_until_retries_run_out() -> None:
    with OpenAIStub() as stub:
        stub.script.extend([(500, {"error": {"message": "boom"}})] * 10)
        with pytest.raises(ExtractionFailed, match="LLM endpoint failed"):
            await _llm(stub, retries=2).extract(MESSAGES)
    assert len(stub.requests) == 3
