"""A local OpenAI-compatible HTTP server for tests: scripted answers, recorded requests.

Tests talk to it through the real ``openai`` client, so retries, status handling and
parsing are exercised for real. Unscripted embedding requests get deterministic
vectors derived from the text.
"""

from __future__ import annotations

import hashlib
import json
import re
import threading
import time
from collections import deque
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import numpy as np


def fake_vector(text: str, dimension: int) -> list[float]:
    """A unit vector that depends only on the text."""
    seed = int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big")
    vector = np.random.default_rng(seed).standard_normal(dimension)
    return (vector / np.linalg.norm(vector)).tolist()


def chat_answer(content: str) -> dict[str, Any]:
    """A chat completion whose message is ``content``."""
    return {
        "id": "chatcmpl-stub",
        "object": "chat.completion",
        "created": 0,
        "model": "stub",
        "choices": [
            {"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}
        ],
        "usage": {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0},
    }


class OpenAIStub:
    """Serves ``POST /v1/embeddings``; ``script`` holds (status, body) answers to give first."""

    def __init__(self, dimension: int = 8, echo_insights: int = 0) -> None:
        self.dimension = dimension
        #: When > 0, unscripted chat answers report that many insights from the prompt's messages.
        self.echo_insights = echo_insights
        #: Seconds an unscripted chat answer takes (a slow or hung LLM).
        self.chat_delay_seconds = 0.0
        self.script: deque[tuple[int, Any]] = deque()
        self.requests: list[dict[str, Any]] = []
        self._lock = threading.Lock()
        stub = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - stdlib name
                return

            def do_POST(self) -> None:  # noqa: N802 - stdlib name
                length = int(self.headers.get("content-length") or 0)
                body = json.loads(self.rfile.read(length) or b"{}")
                with stub._lock:
                    stub.requests.append({"path": self.path, "body": body})
                    scripted = stub.script.popleft() if stub.script else None
                if scripted is None:
                    if self.path.endswith("/chat/completions") and stub.chat_delay_seconds:
                        time.sleep(stub.chat_delay_seconds)
                    status, answer = 200, stub._default_answer(self.path, body)
                else:
                    status, answer = scripted
                payload = answer if isinstance(answer, bytes) else json.dumps(answer).encode()
                self.send_response(status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    def _default_answer(self, path: str, body: dict[str, Any]) -> dict[str, Any]:
        if path.endswith("/embeddings"):
            texts = body["input"] if isinstance(body["input"], list) else [body["input"]]
            return {
                "object": "list",
                "model": body.get("model", "stub"),
                "data": [
                    {"object": "embedding", "index": i, "embedding": fake_vector(t, self.dimension)}
                    for i, t in enumerate(texts)
                ],
                "usage": {"prompt_tokens": 0, "total_tokens": 0},
            }
        if path.endswith("/chat/completions"):
            transcript = body["messages"][-1]["content"] if body.get("messages") else ""
            lines = re.findall(r"^\[([^\]]+)\] (\w+): (.*)$", transcript, flags=re.M)[: self.echo_insights]
            insights = [
                {"type": "fact", "content": text[:200], "confidence": 0.9, "messageId": mid}
                for mid, _role, text in lines
            ]
            return chat_answer(json.dumps({"insights": insights}))
        return {"error": {"message": f"no stub for {path}"}}

    @property
    def base_url(self) -> str:
        """The ``/v1`` base URL to give the openai client."""
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}/v1"

    def __enter__(self) -> OpenAIStub:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()
