"""A local OpenAI-compatible test server: ``/v1/chat/completions`` and ``/v1/embeddings``.

A real :class:`http.server.ThreadingHTTPServer` bound to 127.0.0.1 on a free port, serving from
a thread. Answers are deterministic: scripted replies are consumed first (FIFO, optionally per
path), then ``responder(request)`` decides, then a built-in default (an echo for chat, hashed
bag-of-words vectors for embeddings). Faults are ordinary scripted replies: :func:`rate_limited`,
:func:`server_error`, :func:`slow`, :func:`truncated`, :func:`not_json`. Every request is
recorded (path, headers, decoded JSON) and the peak number of requests in flight is tracked.

    with OpenAIServer() as server:
        server.enqueue(rate_limited(retry_after="2"), chat("fine"))
        client = HTTPClient(server.base_url, api_key_env=None)
        ...
        assert server.peak_concurrency <= 4
"""

from __future__ import annotations

import hashlib
import json
import math
import re
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

__all__ = [
    "OpenAIServer",
    "RecordedRequest",
    "Reply",
    "chat",
    "chat_content",
    "embeddings",
    "hash_embedding",
    "not_json",
    "rate_limited",
    "server_error",
    "slow",
    "truncated",
]

CHAT_PATH = "/v1/chat/completions"
EMBEDDINGS_PATH = "/v1/embeddings"


@dataclass
class Reply:
    """One scripted HTTP answer. ``body`` may be a JSON-able object, ``str`` or ``bytes``.

    ``delay`` seconds are waited before answering; ``truncate_at`` sends a ``Content-Length``
    of the full body but only that many bytes, then closes the connection.
    """

    status: int = 200
    body: Any = None
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0
    truncate_at: int | None = None

    def encoded(self) -> bytes:
        if isinstance(self.body, bytes):
            return self.body
        if isinstance(self.body, str):
            return self.body.encode("utf-8")
        return json.dumps(self.body, ensure_ascii=False).encode("utf-8")


@dataclass
class RecordedRequest:
    """A request the server received."""

    path: str
    headers: dict[str, str]
    raw: bytes
    json: Any
    started: float
    finished: float = 0.0

    @property
    def prompt(self) -> str:
        """The concatenated message contents of a chat request (empty for others)."""
        if not isinstance(self.json, dict):
            return ""
        messages = self.json.get("messages") or []
        return "\n".join(str(m.get("content", "")) for m in messages if isinstance(m, dict))

    @property
    def last_message(self) -> str:
        if not isinstance(self.json, dict):
            return ""
        messages = self.json.get("messages") or []
        return str(messages[-1].get("content", "")) if messages else ""


Responder = Callable[[RecordedRequest], "Reply | str | dict[str, Any]"]


# -- reply builders -------------------------------------------------------------------------


def _count_words(text: str) -> int:
    return max(1, len(re.findall(r"\w+|[^\w\s]", text)))


def chat(
    content: str,
    *,
    prompt_tokens: int | None = None,
    completion_tokens: int | None = None,
    model: str = "test-model",
    usage: bool = True,
    delay: float = 0.0,
) -> Reply:
    """A chat-completions answer whose message content is ``content``."""
    body: dict[str, Any] = {
        "id": "chatcmpl-test",
        "object": "chat.completion",
        "created": 0,
        "model": model,
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": content},
                "finish_reason": "stop",
            }
        ],
    }
    if usage:
        p = 10 if prompt_tokens is None else prompt_tokens
        c = _count_words(content) if completion_tokens is None else completion_tokens
        body["usage"] = {"prompt_tokens": p, "completion_tokens": c, "total_tokens": p + c}
    return Reply(200, body, delay=delay)


def chat_content(body: Any) -> str | None:
    """The assistant content of a chat-completions body (``None`` if absent)."""
    try:
        return str(body["choices"][0]["message"]["content"])
    except (KeyError, IndexError, TypeError):
        return None


def hash_embedding(text: str, dim: int = 16) -> list[float]:
    """A deterministic unit vector: hashed bag of lowercase words (and CJK characters)."""
    vector = [0.0] * dim
    tokens = re.findall(r"[a-z0-9]+|[\u3400-\u9fff]", text.lower()) or [text]
    for token in tokens:
        digest = hashlib.sha256(token.encode("utf-8")).digest()
        index = int.from_bytes(digest[:4], "little") % dim
        vector[index] += 1.0 if digest[4] & 1 else -1.0
    norm = math.sqrt(sum(v * v for v in vector)) or 1.0
    return [v / norm for v in vector]


def embeddings(
    vectors: Iterable[Iterable[float]], *, model: str = "test-embedder", prompt_tokens: int = 0
) -> Reply:
    """An embeddings answer carrying ``vectors`` in order."""
    data = [
        {"object": "embedding", "index": i, "embedding": [float(x) for x in v]}
        for i, v in enumerate(vectors)
    ]
    body = {
        "object": "list",
        "data": data,
        "model": model,
        "usage": {"prompt_tokens": prompt_tokens, "total_tokens": prompt_tokens},
    }
    return Reply(200, body)


def rate_limited(retry_after: str | None = "1", *, status: int = 429) -> Reply:
    """HTTP 429, with ``Retry-After`` when given (seconds or an HTTP date)."""
    headers = {} if retry_after is None else {"Retry-After": retry_after}
    return Reply(status, {"error": {"message": "rate limited", "type": "rate_limit"}}, headers)


def server_error(status: int = 500, message: str = "internal error") -> Reply:
    """A 5xx (or any status) with an OpenAI-style error body."""
    return Reply(status, {"error": {"message": message, "type": "server_error"}})


def slow(seconds: float, then: Reply | None = None) -> Reply:
    """``then`` (a chat answer by default) after ``seconds``: past a short client timeout."""
    reply = then if then is not None else chat("slow answer")
    return Reply(reply.status, reply.body, dict(reply.headers), seconds, reply.truncate_at)


def truncated(reply: Reply | None = None, keep: float = 0.5) -> Reply:
    """``reply`` cut after ``keep`` of its bytes, with the full ``Content-Length`` announced."""
    reply = reply if reply is not None else chat("this answer is cut")
    size = len(reply.encoded())
    return Reply(reply.status, reply.body, dict(reply.headers), reply.delay, int(size * keep))


def not_json(text: str = "<html>Bad gateway</html>", status: int = 200) -> Reply:
    """A body that is not JSON."""
    return Reply(status, text, {"Content-Type": "text/html"})


# -- the server -----------------------------------------------------------------------------


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 128  # many concurrent clients connect at once: no SYN retries


def _default_reply(request: RecordedRequest) -> Reply:
    body = request.json if isinstance(request.json, dict) else {}
    if request.path == EMBEDDINGS_PATH:
        inputs = body.get("input", [])
        if isinstance(inputs, str):
            inputs = [inputs]
        dim = int(body.get("dimensions") or 16)
        tokens = sum(_count_words(str(t)) for t in inputs)
        return embeddings([hash_embedding(str(t), dim) for t in inputs], prompt_tokens=tokens)
    if request.path == CHAT_PATH:
        return chat("ok", prompt_tokens=_count_words(request.prompt))
    return Reply(404, {"error": {"message": f"no route {request.path}"}})


def _coerce(reply: Reply | str | dict[str, Any]) -> Reply:
    if isinstance(reply, Reply):
        return reply
    if isinstance(reply, str):
        return chat(reply)
    return Reply(200, reply)


class OpenAIServer:
    """The test server. Use as a context manager or call :meth:`start` / :meth:`stop`.

    ``responder(request)`` answers when no scripted reply is queued; it may return a
    :class:`Reply`, a ``str`` (a chat answer with that content) or a ``dict`` (a JSON body).
    """

    def __init__(self, responder: Responder | None = None) -> None:
        self.responder = responder
        self.requests: list[RecordedRequest] = []
        self._queue: deque[tuple[str | None, Reply | Responder]] = deque()
        self._lock = threading.Lock()
        self._in_flight = 0
        self.peak_concurrency = 0
        self._stop = threading.Event()
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # scripting -------------------------------------------------------------------------------

    def enqueue(self, *replies: Reply | Responder | str, path: str | None = None) -> None:
        """Queue replies, consumed in order by the next requests (to ``path`` only, if given)."""
        with self._lock:
            for reply in replies:
                self._queue.append((path, chat(reply) if isinstance(reply, str) else reply))

    @property
    def pending(self) -> int:
        """Scripted replies not consumed yet."""
        with self._lock:
            return len(self._queue)

    def reset(self) -> None:
        """Forget recorded requests, queued replies and the concurrency peak."""
        with self._lock:
            self.requests.clear()
            self._queue.clear()
            self.peak_concurrency = 0

    def requests_to(self, path: str) -> list[RecordedRequest]:
        with self._lock:
            return [r for r in self.requests if r.path == path]

    @property
    def chat_requests(self) -> list[RecordedRequest]:
        return self.requests_to(CHAT_PATH)

    @property
    def embedding_requests(self) -> list[RecordedRequest]:
        return self.requests_to(EMBEDDINGS_PATH)

    # lifecycle -------------------------------------------------------------------------------

    @property
    def port(self) -> int:
        assert self._server is not None, "server not started"
        return int(self._server.server_address[1])

    @property
    def root_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def base_url(self) -> str:
        """The OpenAI-style base URL (ending in ``/v1``)."""
        return f"{self.root_url}/v1"

    def start(self) -> OpenAIServer:
        handler = _make_handler(self)
        server = _Server(("127.0.0.1", 0), handler)
        self._server = server
        self._stop.clear()
        self._thread = threading.Thread(
            target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None

    def __enter__(self) -> OpenAIServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # request handling ------------------------------------------------------------------------

    def _next_reply(self, request: RecordedRequest) -> Reply:
        scripted: Reply | Responder | None = None
        with self._lock:
            for i, (path, reply) in enumerate(self._queue):
                if path is None or path == request.path:
                    scripted = reply
                    del self._queue[i]
                    break
        if isinstance(scripted, Reply):
            return scripted
        if scripted is not None:
            return _coerce(scripted(request))
        if self.responder is not None:
            return _coerce(self.responder(request))
        return _default_reply(request)

    def _enter(self) -> None:
        with self._lock:
            self._in_flight += 1
            self.peak_concurrency = max(self.peak_concurrency, self._in_flight)

    def _leave(self) -> None:
        with self._lock:
            self._in_flight -= 1

    def _wait(self, seconds: float) -> None:
        if seconds > 0:
            self._stop.wait(seconds)


def _make_handler(owner: OpenAIServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        server_version = "ragchunk-test"
        protocol_version = "HTTP/1.0"

        def log_message(self, format: str, *args: Any) -> None:  # silence stderr
            pass

        def do_POST(self) -> None:
            owner._enter()
            self._left = False
            try:
                self._handle()
            except (BrokenPipeError, ConnectionResetError):  # client gave up (timeout)
                pass
            finally:
                self._leave()

        def _leave(self) -> None:
            # before the answer goes out: once the client has read it, it may send its next
            # request, which must not overlap this one in the count
            if not self._left:
                self._left = True
                owner._leave()

        def _handle(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length) if length else b""
            try:
                decoded: Any = json.loads(raw.decode("utf-8")) if raw else None
            except ValueError:
                decoded = None
            record = RecordedRequest(
                path=self.path.split("?", 1)[0],
                headers={k: v for k, v in self.headers.items()},
                raw=raw,
                json=decoded,
                started=time.monotonic(),
            )
            with owner._lock:
                owner.requests.append(record)
            try:
                reply = owner._next_reply(record)
            except Exception as exc:  # a broken responder is a 500 the test can see
                reply = server_error(500, f"responder raised {type(exc).__name__}: {exc}")
            owner._wait(reply.delay)
            payload = reply.encoded()
            self._leave()
            self.send_response(reply.status)
            headers = {"Content-Type": "application/json", **reply.headers}
            for name, value in headers.items():
                self.send_header(name, value)
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            if reply.truncate_at is not None:
                self.wfile.write(payload[: reply.truncate_at])
                self.wfile.flush()
                self.close_connection = True
            else:
                self.wfile.write(payload)
            record.finished = time.monotonic()

    return Handler
