"""The shared JSON-over-HTTP client against the local test server, with faults injected."""

from __future__ import annotations

import asyncio
import email.utils
import logging
import threading
import time

import pytest
from openai_server import (
    CHAT_PATH,
    chat,
    chat_content,
    not_json,
    rate_limited,
    server_error,
    slow,
    truncated,
)
from ragchunk.core.http import HTTPClient, HTTPError, _parse_retry_after

pytestmark = pytest.mark.single_backend

KEY = "sk-test-0123456789abcdef"


def _client(server, **kwargs):
    delays: list[float] = []
    kwargs.setdefault("api_key_env", None)
    kwargs.setdefault("random", lambda: 1.0)
    client = HTTPClient(server.base_url, sleep=delays.append, **kwargs)
    return client, delays


def test_success_sends_json_and_bearer_only_with_key(openai_server):
    client, _ = _client(openai_server, api_key=KEY)
    body = client.post_json("/chat/completions", {"model": "m", "messages": []})
    assert chat_content(body) == "ok"
    (request,) = openai_server.requests
    assert request.path == CHAT_PATH
    assert request.headers["Authorization"] == f"Bearer {KEY}"
    assert request.json == {"model": "m", "messages": []}
    assert (client.stats.calls, client.stats.retries, client.stats.failures) == (1, 0, 0)

    anonymous, _ = _client(openai_server)
    anonymous.post_json("chat/completions", {"messages": []})
    assert "Authorization" not in openai_server.requests[-1].headers


def test_key_from_environment(openai_server, monkeypatch):
    monkeypatch.setenv("RAGCHUNK_TEST_KEY", KEY)
    client = HTTPClient(openai_server.base_url, api_key_env="RAGCHUNK_TEST_KEY")
    client.post_json("/embeddings", {"input": ["a"]})
    assert openai_server.requests[-1].headers["Authorization"] == f"Bearer {KEY}"


def test_exponential_backoff_with_full_jitter_schedule(openai_server):
    openai_server.enqueue(
        server_error(500), server_error(502), server_error(503), server_error(504)
    )
    draws = iter([0.5, 0.25, 1.0, 0.75])
    client, delays = _client(
        openai_server, backoff=1.0, max_backoff=5.0, random=lambda: next(draws)
    )
    body = client.post_json("/chat/completions", {"messages": []})
    assert chat_content(body) == "ok"
    # random() * min(max_backoff, backoff * 2**attempt)
    assert delays == [0.5 * 1, 0.25 * 2, 1.0 * 4, 0.75 * 5]
    assert len(openai_server.requests) == 5
    assert client.stats.retries == 4


def test_retry_after_seconds_and_http_date_capped(openai_server):
    future = email.utils.formatdate(time.time() + 20, usegmt=True)
    openai_server.enqueue(
        rate_limited("3"), rate_limited(future), rate_limited("120"), chat("done")
    )
    client, delays = _client(openai_server, max_backoff=30.0)
    assert chat_content(client.post_json("/chat/completions", {})) == "done"
    assert delays[0] == 3.0
    assert 17.0 <= delays[1] <= 20.0
    assert delays[2] == 30.0  # capped by max_backoff


def test_parse_retry_after():
    assert _parse_retry_after("7") == 7.0
    assert _parse_retry_after("-3") == 0.0
    assert _parse_retry_after("soon") is None
    assert _parse_retry_after(None) is None
    past = email.utils.formatdate(time.time() - 100, usegmt=True)
    assert _parse_retry_after(past) == 0.0


def test_gives_up_after_max_retries(openai_server):
    openai_server.enqueue(*[server_error(503, "overloaded")] * 3)
    client, delays = _client(openai_server, max_retries=2, backoff=0.1)
    with pytest.raises(HTTPError) as info:
        client.post_json("/chat/completions", {})
    assert info.value.status == 503
    assert info.value.retryable
    assert "3 attempts" in str(info.value)
    assert "overloaded" in info.value.body
    assert len(delays) == 2
    assert (client.stats.calls, client.stats.retries, client.stats.failures) == (1, 2, 1)


@pytest.mark.parametrize("status", [400, 401, 403, 404, 422])
def test_client_errors_are_not_retried(openai_server, status):
    openai_server.enqueue(server_error(status, "nope"))
    client, delays = _client(openai_server)
    with pytest.raises(HTTPError) as info:
        client.post_json("/chat/completions", {})
    assert info.value.status == status
    assert not info.value.retryable
    assert delays == []
    assert len(openai_server.requests) == 1


def test_408_is_retried(openai_server):
    openai_server.enqueue(server_error(408))
    client, delays = _client(openai_server)
    client.post_json("/chat/completions", {})
    assert len(delays) == 1


def test_timeout_truncated_and_non_json_are_retried(openai_server):
    openai_server.enqueue(slow(1.0), truncated(), not_json(), not_json("[1, 2]"), chat("ok now"))
    client, _delays = _client(openai_server, timeout=0.2, backoff=0.0)
    assert chat_content(client.post_json("/chat/completions", {})) == "ok now"
    assert client.stats.retries == 4


def test_failure_reasons_are_named(openai_server):
    client, _ = _client(openai_server, timeout=0.2, max_retries=0)
    openai_server.enqueue(slow(1.0))
    with pytest.raises(HTTPError, match="timed out"):
        client.post_json("/chat/completions", {})
    openai_server.enqueue(truncated())
    with pytest.raises(HTTPError, match="truncated"):
        client.post_json("/chat/completions", {})
    openai_server.enqueue(not_json())
    with pytest.raises(HTTPError, match="not JSON") as info:
        client.post_json("/chat/completions", {})
    assert info.value.status == 200 and "Bad gateway" in info.value.body


def test_connection_refused_is_retried_then_raised():
    client = HTTPClient(
        "http://127.0.0.1:9/v1", api_key_env=None, max_retries=2, sleep=lambda s: None
    )
    with pytest.raises(HTTPError, match="connection error") as info:
        client.post_json("/chat/completions", {})
    assert info.value.status is None
    assert client.stats.retries == 2


def test_api_key_never_in_repr_logs_or_exceptions(openai_server, caplog):
    # the server echoes the key back in its error body: the excerpt must redact it
    def echo_auth(request):
        from openai_server import Reply

        return Reply(401, {"error": {"message": f"bad key {request.headers['Authorization']}"}})

    openai_server.responder = echo_auth
    client, _ = _client(openai_server, api_key=KEY)
    caplog.set_level(logging.DEBUG)
    with pytest.raises(HTTPError) as info:
        client.post_json("/chat/completions", {})
    openai_server.responder = None
    openai_server.enqueue(server_error(500), server_error(500))
    client2, _ = _client(openai_server, api_key=KEY, max_retries=1)
    with pytest.raises(HTTPError) as info2:
        client2.post_json("/chat/completions", {})
    texts = [str(info.value), repr(info.value), info.value.body, str(info2.value), info2.value.body]
    texts += [repr(client), str(vars(client.stats)), caplog.text]
    assert caplog.text  # retries were logged
    for text in texts:
        assert KEY not in text
    assert "[REDACTED]" in info.value.body


def test_concurrency_bound_threads(openai_server):
    openai_server.responder = lambda request: slow(0.05)
    client, _ = _client(openai_server, max_concurrency=3)
    threads = [
        threading.Thread(target=client.post_json, args=("/chat/completions", {})) for _ in range(12)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(openai_server.requests) == 12
    assert 2 <= openai_server.peak_concurrency <= 3


def test_concurrency_bound_asyncio(openai_server):
    openai_server.responder = lambda request: slow(0.05)
    client, _ = _client(openai_server, max_concurrency=2)

    async def main():
        return await asyncio.gather(
            *(client.apost_json("/embeddings", {"input": [str(i)]}) for i in range(8))
        )

    results = asyncio.run(main())
    assert len(results) == 8
    assert openai_server.peak_concurrency == 2  # reached, never exceeded
    assert client.stats.calls == 8


def test_async_retries(openai_server):
    openai_server.enqueue(rate_limited("2"), chat("async ok"))
    client, delays = _client(openai_server)
    body = asyncio.run(client.apost_json("/chat/completions", {}))
    assert chat_content(body) == "async ok"
    assert delays == [2.0]


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"base_url": ""}, "base_url"),
        ({"base_url": "ftp://x"}, "base_url"),
        ({"timeout": 0}, "timeout"),
        ({"max_retries": -1}, "max_retries"),
        ({"max_concurrency": 0}, "max_concurrency"),
        ({"backoff": -1}, "backoff"),
    ],
)
def test_bad_arguments_name_the_argument(kwargs, match):
    args = {"base_url": "http://127.0.0.1:9", **kwargs}
    with pytest.raises(ValueError, match=match):
        HTTPClient(args.pop("base_url"), **args)


def test_async_bound_reached_above_the_default_executor_size(openai_server):
    openai_server.responder = lambda request: slow(0.1)
    client, _ = _client(openai_server, max_concurrency=12)

    async def main():
        return await asyncio.gather(
            *(client.apost_json("/chat/completions", {}) for _ in range(24))
        )

    assert len(asyncio.run(main())) == 24
    assert 8 <= openai_server.peak_concurrency <= 12  # above the default executor size
