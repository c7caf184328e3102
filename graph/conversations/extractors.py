"""Insight extractors: an LLM through any OpenAI-compatible endpoint, and offline rules.

Both turn a thread's messages into :class:`ExtractedInsight` items (type preference,
fact, decision or question; content; confidence; the message it came from). The LLM
answer is structured JSON validated by pydantic; an answer that does not validate is
re-asked once with the validation error, then the run fails with the reason. The rule
extractor is used when no LLM is configured; it catches the common phrasings only and
says so: its name (``rules-v1``) is on every insight it writes, with lower confidence.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import openai
from pydantic import BaseModel, Field, ValidationError

from graph.conversations.models import InsightType
from graph.core.errors import ContextNetworkError
from graph.core.llm import OpenAIChat
from graph.core.openai_embedder import openai_retrying
from graph.core.settings import Settings

log = logging.getLogger(__name__)


class ExtractedInsight(BaseModel):
    """One insight as an extractor reports it."""

    type: InsightType
    content: str = Field(min_length=3, max_length=2_000)
    confidence: float = Field(ge=0.0, le=1.0)
    message_id: str = Field(alias="messageId", min_length=1)

    model_config = {"populate_by_name": True}


class ExtractionResult(BaseModel):
    """The whole answer of an extractor."""

    insights: list[ExtractedInsight]


@dataclass(frozen=True)
class ThreadMessage:
    """A message as extractors see it."""

    id: str
    role: str
    content: str


class ExtractionFailed(ContextNetworkError):
    """The extractor could not produce a valid answer."""

    code = "extraction_failed"


class Extractor(Protocol):
    """Turns messages into insights."""

    @property
    def name(self) -> str:
        """Written on every insight this extractor produces."""
        ...

    async def extract(self, messages: Sequence[ThreadMessage]) -> list[ExtractedInsight]:
        """Insights found in the messages."""
        ...


# --- offline rules ---------------------------------------------------------------------------------
_SENTENCE = re.compile(r"[^.!?\n]+[.!?]?")
_RULES: list[tuple[InsightType, float, re.Pattern[str]]] = [
    (InsightType.PREFERENCE, 0.75, re.compile(
        r"\b(i|we) (really |strongly )?(prefer|like|love|want|hate|dislike|would rather|'d rather)\b"
        r"|\b(please )?(always|never) (use|do|write|give|send|answer)\b|\bmy favou?rite\b", re.I)),
    (InsightType.DECISION, 0.75, re.compile(
        r"\b(we|i) (have )?(decided|chose|chosen|agreed|settled on|will go with|'ll go with|are going with)\b"
        r"|\blet'?s (go with|use|pick|choose)\b|\bdecision:", re.I)),
    (InsightType.FACT, 0.72, re.compile(
        r"\b(i|we) (work|live|am based) (at|in|for)\b|\bmy (name|role|job|team|company|title) is\b"
        r"|\bi am an? \w+|\bi'm an? \w+|\b(we|i) use\b"
        r"|\bour (stack|team|company|product) (is|uses)\b", re.I)),
]  # fmt: skip
_QUESTION_OPENERS = re.compile(
    r"^(how|what|why|when|where|which|who|should|can|could|do|does|is|are|will)\b", re.I
)


class RuleExtractor:
    """Deterministic phrase rules; honest about being rules (``rules-v1``)."""

    @property
    def name(self) -> str:
        """``rules-v1``."""
        return "rules-v1"

    async def extract(self, messages: Sequence[ThreadMessage]) -> list[ExtractedInsight]:
        """Stated preferences, facts about the user, decisions, and the user's open questions."""
        found: list[ExtractedInsight] = []
        for message in messages:
            if message.role not in ("user", "assistant"):
                continue
            for raw in _SENTENCE.findall(message.content):
                sentence = raw.strip()
                if len(sentence) < 8:
                    continue
                kind = self._classify(sentence, message.role)
                if kind is not None:
                    insight_type, confidence = kind
                    found.append(
                        ExtractedInsight(
                            type=insight_type, content=sentence, confidence=confidence, messageId=message.id
                        )
                    )
        return found

    @staticmethod
    def _classify(sentence: str, role: str) -> tuple[InsightType, float] | None:
        if role == "user" and sentence.endswith("?") and _QUESTION_OPENERS.search(sentence):
            return InsightType.QUESTION, 0.65
        for insight_type, confidence, pattern in _RULES:
            if insight_type != InsightType.DECISION and role != "user":
                continue  # preferences and facts are the user's own statements
            if pattern.search(sentence):
                return insight_type, confidence
        return None


# --- LLM through an OpenAI-compatible endpoint -----------------------------------------------------------
SYSTEM_PROMPT = """You extract durable insights from a conversation between a user and an assistant.
Categories:
- preference: what the user prefers (e.g. "prefers dark mode")
- fact: facts about the user or their context (e.g. "works at TechCorp")
- decision: decisions made (e.g. "chose Plan B")
- question: questions left unanswered
Answer with JSON only, exactly of this shape:
{"insights": [{"type": "preference|fact|decision|question", "content": "one self-contained sentence",
"confidence": 0.0-1.0, "messageId": "the id of the message it comes from"}]}
Use only message ids that appear in the conversation. Return {"insights": []} if there is nothing durable."""


class LLMExtractor(OpenAIChat):
    """Structured extraction by any OpenAI-compatible chat endpoint (OpenAI, Ollama, vLLM)."""

    async def _ask(self, conversation: list[Any]) -> str:
        try:
            async for attempt in openai_retrying(self._max_retries, self._backoff):
                with attempt:
                    response = await self._client.chat.completions.create(
                        model=self._model,
                        messages=conversation,
                        response_format={"type": "json_object"},
                        temperature=0,
                    )
        except openai.OpenAIError as exc:
            raise ExtractionFailed(f"LLM endpoint failed: {exc}") from exc
        return response.choices[0].message.content or ""

    async def extract(self, messages: Sequence[ThreadMessage]) -> list[ExtractedInsight]:
        """Ask once; if the answer does not validate, ask again with the error; then give up."""
        transcript = "\n".join(f"[{m.id}] {m.role}: {m.content}" for m in messages)
        conversation: list[Any] = [
            {"role": "system", "content": SYSTEM_PROMPT},
            {"role": "user", "content": transcript},
        ]
        known = {m.id for m in messages}
        problem = ""
        for attempt in range(2):
            answer = await self._ask(conversation)
            try:
                result = ExtractionResult.model_validate_json(answer)
                unknown = sorted({i.message_id for i in result.insights} - known)
                if unknown:
                    raise ValueError(f"messageId values not in the conversation: {unknown}")
                return result.insights
            except (ValidationError, ValueError) as exc:
                problem = _short(exc) if isinstance(exc, ValidationError) else str(exc).splitlines()[0]
                log.warning("extraction answer rejected (attempt %d): %s", attempt + 1, problem)
                conversation += [
                    {"role": "assistant", "content": answer},
                    {
                        "role": "user",
                        "content": f"That answer is invalid: {problem}. Answer again with valid JSON only.",
                    },
                ]
        raise ExtractionFailed(f"the LLM answer did not validate twice: {problem}")

    async def close(self) -> None:
        """Close the HTTP client."""
        await self._client.close()


def _short(exc: ValidationError) -> str:
    """Every problem, one per clause: the model is told exactly what to fix."""
    parts = []
    for error in exc.errors()[:10]:
        where = ".".join(str(p) for p in error.get("loc", ()))
        parts.append(f"{where}: {error.get('msg', 'invalid')}" if where else str(error.get("msg", "invalid")))
    return "; ".join(parts) or "invalid"


def describe(insights: Sequence[ExtractedInsight]) -> str:
    """A compact JSON rendering (for logs and tests)."""
    return json.dumps([i.model_dump(by_alias=True) for i in insights])


def build_extractor(settings: Settings) -> Extractor:
    """The LLM extractor when one is configured, else the offline rules."""
    use_llm = settings.extractor == "llm" or (settings.extractor == "auto" and settings.llm_model)
    if use_llm and settings.llm_model:
        return LLMExtractor(
            model=settings.llm_model,
            base_url=settings.llm_base_url,
            api_key=settings.llm_api_key.get_secret_value() if settings.llm_api_key else None,
            timeout=settings.llm_timeout_seconds,
            max_retries=settings.llm_max_retries,
        )
    return RuleExtractor()
