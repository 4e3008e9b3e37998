"""The model protocol: plain callables and OpenAICompatible, retries, cache, accounting."""

from __future__ import annotations

import asyncio
import logging
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from openai_server import Reply, chat, rate_limited, server_error, slow, truncated
from ragchunk.core.http import HTTPError
from ragchunk.llm import LLM, LLMCache, OpenAICompatible, Price, as_llm

pytestmark = pytest.mark.single_backend

KEY = "sk-never-shown-4242424242"


def test_callable_accounting_adds_up():
    llm = LLM(lambda p: "answer " * 3, tokenizer=lambda s: len(s.split()))
    for prompt in ["one two", "three four five", "six"]:
        llm.complete(prompt)
    u = llm.usage
    assert u.calls == 3 and len(u.records) == 3
    assert u.prompt_tokens == sum(r.prompt_tokens for r in u.records) == (2 + 3 + 1) + 3 * 4
    assert u.completion_tokens == sum(r.completion_tokens for r in u.records) == 9
    assert u.total_tokens == u.prompt_tokens + u.completion_tokens
    price = Price(input=2.0, output=10.0)
    assert u.cost(price) == pytest.approx((18 * 2.0 + 9 * 10.0) / 1e6)


def test_callable_retries_follow_backoff_schedule():
    failures = iter([RuntimeError("a"), RuntimeError("b")])

    def flaky(prompt):
        exc = next(failures, None)
        if exc is not None:
            raise exc
        return "fine"

    delays = []
    llm = LLM(flaky, max_retries=2, backoff=1.0, sleep=delays.append, random=lambda: 0.5)
    assert llm.complete("x") == "fine"
    assert delays == [0.5, 1.0]

    never = LLM(lambda p: 1 / 0, max_retries=1, sleep=delays.append)
    with pytest.raises(ZeroDivisionError):
        never.complete("x")
    assert never.usage.failures == 1 and never.usage.calls == 0


def test_callable_concurrency_bound():
    lock = threading.Lock()
    state = {"now": 0, "peak": 0}

    def model(prompt):
        with lock:
            state["now"] += 1
            state["peak"] = max(state["peak"], state["now"])
        time.sleep(0.02)
        with lock:
            state["now"] -= 1
        return prompt

    llm = LLM(model, max_concurrency=3)
    assert llm.complete_many([str(i) for i in range(15)]) == [str(i) for i in range(15)]
    assert state["peak"] == 3
    state["peak"] = 0
    assert asyncio.run(llm.acomplete_many([str(i) for i in range(10)])) == [
        str(i) for i in range(10)
    ]
    assert state["peak"] == 3


def test_as_llm():
    llm = LLM(str)
    assert as_llm(llm) is llm
    with pytest.raises(TypeError, match="llm"):
        as_llm("not a model")


def _openai(server, **kwargs):
    delays: list[float] = []
    kwargs.setdefault("api_key_env", None)
    llm = OpenAICompatible(
        base_url=server.base_url, model="test-model", sleep=delays.append, **kwargs
    )
    return llm, delays


def test_openai_request_and_reported_usage(openai_server):
    openai_server.enqueue(chat("hello there", prompt_tokens=37, completion_tokens=2))
    llm, _ = _openai(openai_server, max_tokens=50)
    assert llm.complete([{"role": "system", "content": "S"}, {"role": "user", "content": "U"}]) == (
        "hello there"
    )
    (request,) = openai_server.chat_requests
    assert request.json["model"] == "test-model"
    assert request.json["messages"][1] == {"role": "user", "content": "U"}
    assert request.json["temperature"] == 0.0 and request.json["max_tokens"] == 50
    record = llm.usage.records[0]
    assert (record.prompt_tokens, record.completion_tokens, record.reported) == (37, 2, True)


def test_openai_usage_counted_when_not_reported(openai_server):
    openai_server.enqueue(chat("two words", usage=False))
    llm, _ = _openai(openai_server)
    llm.complete("count me")
    record = llm.usage.records[0]
    assert not record.reported
    assert record.prompt_tokens == llm.count_tokens("count me") + 4
    assert record.completion_tokens == llm.count_tokens("two words")


def test_openai_faults_retried_with_schedule(openai_server):
    openai_server.enqueue(
        rate_limited("2"), server_error(500), slow(1.0), truncated(), chat("survived")
    )
    llm, delays = _openai(openai_server, timeout=0.3, backoff=1.0, random=lambda: 0.5)
    assert llm.complete("hi") == "survived"
    assert delays == [2.0, 0.5 * 2, 0.5 * 4, 0.5 * 8]
    assert llm.client.stats.retries == 4
    assert llm.usage.calls == 1


def test_openai_malformed_answer_asked_again(openai_server):
    openai_server.enqueue(Reply(200, {"choices": []}), chat("second time"))
    llm, _ = _openai(openai_server)
    assert llm.complete("x") == "second time"


def test_cache_turns_second_run_into_zero_calls(openai_server, tmp_path):
    cache = tmp_path / "answers.sqlite"
    llm, _ = _openai(openai_server, cache=str(cache))
    prompts = [f"prompt {i}" for i in range(6)]
    first = llm.complete_many(prompts)
    assert len(openai_server.chat_requests) == 6
    again, _ = _openai(openai_server, cache=LLMCache(cache))
    assert again.complete_many(prompts) == first
    assert len(openai_server.chat_requests) == 6  # nothing new reached the server
    assert again.usage.calls == 0 and again.usage.cache_hits == 6
    # another model name or other parameters are other keys
    other, _ = _openai(openai_server, cache=str(cache), temperature=0.7)
    other.complete("prompt 0")
    assert len(openai_server.chat_requests) == 7


def test_cache_keys_on_the_endpoint(openai_server, tmp_path):
    """Two servers serving a model of the same name never share cached answers."""
    from openai_server import OpenAIServer

    cache = LLMCache(tmp_path / "answers.sqlite")
    openai_server.responder = lambda request: "from the first server"
    with OpenAIServer(lambda request: "from the second server") as second:
        one, _ = _openai(openai_server, cache=cache)
        two, _ = _openai(second, cache=cache)
        assert one.complete("same prompt") == "from the first server"
        assert two.complete("same prompt") == "from the second server"
        assert len(second.chat_requests) == 1
        # The same endpoint again, with or without a trailing slash, is a hit.
        again = OpenAICompatible(
            base_url=second.base_url + "/", model="test-model", api_key_env=None, cache=cache
        )
        assert again.complete("same prompt") == "from the second server"
        assert len(second.chat_requests) == 1 and again.usage.cache_hits == 1
    assert len(openai_server.chat_requests) == 1


_WRITER = """
import sys
from ragchunk.llm import LLM
llm = LLM(lambda p: "answer to " + p, cache=sys.argv[1], model="m")
for i in range(40):
    llm.complete(f"{sys.argv[2]} {i % 20}")
print(llm.usage.calls, llm.usage.cache_hits)
"""


def test_cache_shared_by_threads_and_processes(tmp_path):
    path = tmp_path / "shared.sqlite"
    llm = LLM(lambda p: "answer to " + p, cache=str(path), model="m", max_concurrency=8)
    results = llm.complete_many([f"t {i % 25}" for i in range(100)])
    assert results == [f"answer to t {i % 25}" for i in range(100)]
    src = str(Path(__file__).resolve().parents[2] / "python")
    env = {**os.environ, "PYTHONPATH": src}
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", _WRITER, str(path), "p"],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
        )
        for _ in range(3)
    ]
    outputs = [p.communicate(timeout=120) for p in procs]
    for (out, err), proc in zip(outputs, procs, strict=True):
        assert proc.returncode == 0, err
        calls, hits = map(int, out.split())
        assert calls + hits == 40 and hits >= 20
    assert len(LLMCache(path)) == 25 + 20


def test_async_entry_point_and_bound(openai_server):
    openai_server.responder = lambda request: slow(0.05, chat("a"))
    llm, _ = _openai(openai_server, max_concurrency=2)
    answers = asyncio.run(llm.acomplete_many([f"q{i}" for i in range(8)]))
    assert answers == ["a"] * 8
    assert openai_server.peak_concurrency == 2  # reached, never exceeded


def test_api_key_never_in_logs_reprs_or_exceptions(openai_server, caplog):
    caplog.set_level(logging.DEBUG)
    openai_server.enqueue(server_error(503), server_error(503))
    openai_server.responder = lambda request: Reply(
        401, {"error": {"message": "rejected " + request.headers.get("Authorization", "")}}
    )
    llm, _ = _openai(openai_server, api_key=KEY, max_retries=2)
    with pytest.raises(HTTPError) as info:
        llm.complete("x")
    assert openai_server.chat_requests[0].headers["Authorization"] == f"Bearer {KEY}"
    for text in (str(info.value), repr(info.value), info.value.body, repr(llm), caplog.text):
        assert KEY not in text
    assert "retry" in caplog.text


def test_bad_arguments():
    with pytest.raises(ValueError, match="model"):
        OpenAICompatible(base_url="http://127.0.0.1:9/v1", model="")
    with pytest.raises(ValueError, match="max_concurrency"):
        LLM(str, max_concurrency=0)
    with pytest.raises(TypeError, match="cache"):
        LLM(str, cache=3)  # type: ignore[arg-type]


def test_async_bound_reached_above_the_default_executor_size(openai_server):
    # the event loop's default executor has min(32, cpus + 4) threads: the bound must not
    # depend on it
    openai_server.responder = lambda request: slow(0.1, chat("a"))
    llm, _ = _openai(openai_server, max_concurrency=12)
    answers = asyncio.run(llm.acomplete_many([f"q{i}" for i in range(24)]))
    assert answers == ["a"] * 24
    assert 8 <= openai_server.peak_concurrency <= 12  # above the default executor size


def test_reasoning_block_removed(openai_server):
    openai_server.enqueue(chat("<think>\nLet me see... [1, 2]\n</think>\n[3]"))
    llm, _ = _openai(openai_server)
    assert llm.complete("where?") == "[3]"
