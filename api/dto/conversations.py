"""Conversation requests as the domain takes them: messages and recorded insights."""

from __future__ import annotations

from ctxnet.wire.base import data_text
from ctxnet.wire.conversations import InsightRecordIn, MessageIn
from graph.conversations.models import NewMessage, RecordedInsight


def new_message(body: MessageIn) -> NewMessage:
    """The domain's view of a message to append."""
    return NewMessage(
        role=body.role,
        content=body.content,
        id=body.id,
        created_at=body.created_at,
        data=data_text(body.data),
    )


def recorded_insight(body: InsightRecordIn) -> RecordedInsight:
    """The domain's view of an insight found outside the service."""
    return RecordedInsight(
        message_id=body.message_id, type=body.type, content=body.content, confidence=body.confidence,
        id=body.id, extractor=body.extractor, extracted_at=body.extracted_at,
        embedding=body.embedding, knowledge_ids=tuple(body.knowledge_ids),
    )  # fmt: skip
