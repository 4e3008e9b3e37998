"""A fake OpenAI-compatible model for the evaluation commands: it writes questions whose
excerpts are sentences of the document shown, answers with the first retrieved sentence, and
judges by word overlap. Deterministic; for tests and the documentation's examples.

    python tests/eval/fake_eval_server.py --port 8765     # serves until interrupted
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from openai_server import OpenAIServer, RecordedRequest, _default_reply

_SENTENCE = re.compile(r"[^.!?\n]+[.!?]")


def _words(text: str) -> set[str]:
    return {w for w in re.findall(r"[a-z0-9]+", text.lower()) if len(w) > 3}


def _overlap(a: str, b: str) -> int:
    return int(len(_words(a) & _words(b)) >= 2)


def respond(request: RecordedRequest) -> object:
    """The reply to one request of the evaluation commands."""
    if request.path.endswith("/embeddings"):
        return _default_reply(request)
    p = request.last_message
    if "Document:\n" in p:
        number = int(re.search(r"question number (\d+)", p).group(1))  # type: ignore[union-attr]
        sentences = [s.strip() for s in _SENTENCE.findall(p.split("Document:\n", 1)[1])]
        sentences = [s for s in sentences if len(s.split()) >= 4] or ["(empty)"]
        s = sentences[(3 * number) % len(sentences)]
        if number == 4:  # an invented excerpt, which the generator must drop
            s = "This sentence is not in the document."
        words = s.split()
        question = f"What does the document say about {' '.join(words[1:4]).strip(',;:')}?"
        return json.dumps({"question": question, "references": [s]})
    if p.rstrip().endswith("Answer:"):
        context = p.split("Context:\n", 1)[1].split("\n\nQuestion:", 1)[0]
        first = context.split("\n\n", 1)[0].split("] ", 1)[-1]
        found = _SENTENCE.findall(first)
        return found[0].strip() if found else "I do not know."
    if "standalone statements" in p:
        answer = p.split("Answer: ", 1)[1].split("\n\n", 1)[0]
        return json.dumps([s.strip() for s in _SENTENCE.findall(answer)] or [answer])
    if "Statements:" in p:
        context, statements = p.split("Context:\n", 1)[1].split("\n\nStatements:\n", 1)
        rows = [line for line in statements.split("\n\n", 1)[0].splitlines() if line.strip()]
        return json.dumps([{"verdict": _overlap(r, context)} for r in rows])
    if "noncommittal" in p:
        answer = p.split("Answer: ", 1)[1].split("\n\n", 1)[0]
        words = answer.split()
        qs = [f"What {' '.join(words[:n])}?" for n in (3, 5, 7)]
        return json.dumps({"questions": qs, "noncommittal": int("do not know" in answer)})
    if "Passage:" in p:
        reference = p.split("Reference answer: ", 1)[1].split("\n\n", 1)[0]
        passage = p.split("Passage:\n", 1)[1]
        return json.dumps({"verdict": _overlap(reference, passage)})
    if "attributed" in p:
        context = p.split("Context:\n", 1)[1].split("\n\nReference answer: ", 1)[0]
        reference = p.split("Reference answer: ", 1)[1].split("\n\n", 1)[0]
        sentences = _SENTENCE.findall(reference) or [reference]
        return json.dumps([{"statement": s, "attributed": _overlap(s, context)} for s in sentences])
    return "I do not know."


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--port", type=int, default=8765)
    port = parser.parse_args().port
    server = OpenAIServer(respond)
    _start(server, port)
    print(f"serving on http://127.0.0.1:{server.port}/v1", flush=True)
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        server.stop()
    return 0


def _start(server: OpenAIServer, port: int) -> None:
    import threading

    from openai_server import _make_handler, _Server

    httpd = _Server(("127.0.0.1", port), _make_handler(server))
    server._server = httpd
    server._thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    server._thread.start()


if __name__ == "__main__":
    sys.exit(main())
