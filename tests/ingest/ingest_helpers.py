"""Shared pieces of the ingest tests: a corpus that changes between versions, a
deterministic embedder, and a child process that runs one ingest (and may be killed).

Run as a script, it ingests: ``python ingest_helpers.py STORE SRC CLEANUP [MANIFEST]``; with
``INGEST_TEST_RAY_ADDRESS`` set, through ``ingest_ray`` on the Ray cluster at that address."""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
PYTHON_DIR = HERE.parents[1] / "python"
DIM = 8
BATCH = 4

WORDS = "alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu 第一段。".split()


def _doc(i: int, version: int = 0) -> str:
    body = " ".join(WORDS[(i * 3 + k + version) % len(WORDS)] for k in range(30 + 11 * (i % 5)))
    return f"# Document {i}\n\n{body}.\n\n## Part two\n\nMore of {i}, version {version}.\n"


def write_corpus(root: Path, version: int) -> None:
    """Version 1: twelve files. Version 2: three modified, two added, two deleted, one
    renamed (moved to another folder, same content)."""
    if root.exists():
        shutil.rmtree(root)
    (root / "sub").mkdir(parents=True)
    names = {i: f"doc{i:02d}.md" if i % 3 else f"sub/doc{i:02d}.md" for i in range(12)}
    versions = dict.fromkeys(names, 0)
    if version == 2:
        for i in (1, 4, 9):
            versions[i] = 2
        for i in (5, 10):
            del names[i]
        names[7] = "sub/renamed07.md"
        names[12], versions[12] = "doc12.md", 0
        names[13], versions[13] = "sub/doc13.md", 0
    for i, name in names.items():
        (root / name).write_text(_doc(i, versions[i]), encoding="utf-8")


def embed(texts: list[str]) -> list[list[float]]:
    """A deterministic embedder: DIM floats from each text's sha256."""
    pause = float(os.environ.get("INGEST_TEST_EMBED_SECONDS", "0"))
    if pause:
        time.sleep(pause)
    out = []
    for t in texts:
        digest = hashlib.sha256(t.encode("utf-8")).digest()
        out.append([b / 255.0 for b in digest[:DIM]])
    return out


def chunker() -> Any:
    import ragchunk

    return ragchunk.MarkdownSplitter(24)


def run_ingest(store: str, src: str, cleanup: str, manifest: str | None = None) -> Any:
    from ragchunk.ingest import ingest

    return ingest(
        [src],
        store,
        chunker(),
        embedder=embed,
        cleanup=cleanup,
        manifest=manifest,
        batch_size=BATCH,
        workers=1,
        base=src,
    )


def child(
    store: str,
    src: Path,
    cleanup: str,
    *,
    kill_at: int | None = None,
    trace: Path | None = None,
    manifest: str | None = None,
    timeout: float = 120,
    extra_env: dict[str, str] | None = None,
    wait: bool = True,
) -> Any:
    """Run one ingest in a child process; ``kill_at``: it SIGKILLs itself at that point."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(PYTHON_DIR), str(HERE)])
    env.pop("RAGCHUNK_INGEST_KILL_AT", None)
    env.pop("RAGCHUNK_INGEST_TRACE", None)
    if kill_at is not None:
        env["RAGCHUNK_INGEST_KILL_AT"] = str(kill_at)
    if trace is not None:
        env["RAGCHUNK_INGEST_TRACE"] = str(trace)
    env.update(extra_env or {})
    args = [sys.executable, str(HERE / "ingest_helpers.py"), store, str(src), cleanup]
    if manifest is not None:
        args.append(manifest)
    if not wait:
        return subprocess.Popen(
            args, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )
    return subprocess.run(args, env=env, capture_output=True, text=True, timeout=timeout)


def rows(store: str, manifest: str | None = None) -> list[dict[str, Any]]:
    """The store's rows sorted by id, vectors rounded (Chroma returns float32 as float)."""
    from ragchunk.ingest import open_store

    st = open_store(store)
    try:
        out = st.read().to_pylist()
    finally:
        st.close()
    for r in out:
        if r.get("vector") is not None:
            r["vector"] = [round(x, 6) for x in r["vector"]]
    return out


def run_ingest_ray(store: str, src: str, cleanup: str, **options: Any) -> Any:
    """:func:`run_ingest` on Ray: the same chunker, embedder and source ids."""
    from ragchunk.ingest import ingest_ray

    return ingest_ray(
        [src],
        store,
        chunker(),
        embedder=embed,
        cleanup=cleanup,
        base=src,
        batch_size=BATCH,
        commit_size=BATCH,
        concurrency=1,
        **options,
    )


if __name__ == "__main__":
    address = os.environ.get("INGEST_TEST_RAY_ADDRESS")
    if address:
        import ray

        ray.init(address=address, log_to_driver=False)
        report = run_ingest_ray(sys.argv[1], sys.argv[2], sys.argv[3])
    else:
        report = run_ingest(
            sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4] if len(sys.argv) > 4 else None
        )
    print(report.summary())


# ---------------------------------------------------------------------------------------------
# files for the worker tests, made here (nothing hostile is committed)


def pdf(content: bytes, *, flate: bool = False) -> bytes:
    """A one-page PDF whose page draws ``content`` (Helvetica as ``/F1``); ``flate``: the
    content is a FlateDecode stream."""
    extra = b"/Filter /FlateDecode " if flate else b""
    objs = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R "
        b"/Resources << /Font << /F1 5 0 R >> >> >>",
        b"<< " + extra + b"/Length %d >>\nstream\n" % len(content) + content + b"\nendstream",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for i, body in enumerate(objs, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % i + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objs) + 1)
    for off in offsets:
        out += b"%010d 00000 n \n" % off
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objs) + 1, xref)
    return bytes(out)


def text_pdf(lines: list[str]) -> bytes:
    """A PDF page with one line of text per item of ``lines``."""
    shown = b" ".join(b"(%s) Tj 0 -16 Td" % line.encode("latin-1") for line in lines)
    return pdf(b"BT /F1 12 Tf 72 720 Td " + shown + b" ET")


def overlapping_pdf(n: int) -> bytes:
    """A page of ``n`` small text objects drawn over each other: PDFium's text page takes
    time quadratic in their number (16,000: about 2 s)."""
    ops = b"".join(
        b"BT /F1 12 Tf 1 0 0 1 %.2f 700 Tm (%s) Tj ET "
        % (100 + (i % 50) * 0.37, bytes([65 + i % 26]) * 5)
        for i in range(n)
    )
    return pdf(ops)


def inflating_pdf(nbytes: int) -> bytes:
    """A page whose content stream inflates to ``nbytes`` zero bytes."""
    import zlib

    c = zlib.compressobj(1)
    block = b"\0" * (1 << 20)
    parts = [c.compress(block) for _ in range(nbytes >> 20)]
    parts.append(c.flush())
    return pdf(b"".join(parts), flate=True)


def encrypted_pdf(plain: bytes) -> bytes:
    """``plain`` encrypted with a user password (pypdf)."""
    import io

    import pypdf

    writer = pypdf.PdfWriter(clone_from=io.BytesIO(plain))
    writer.encrypt("secret", algorithm="AES-128")
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def docx_bomb(path: Path, nbytes: int) -> None:
    """A DOCX package whose document part inflates to ``nbytes`` of spaces."""
    import zipfile

    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr(
            "[Content_Types].xml",
            '<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/'
            '2006/content-types"/>',
        )
        with zf.open("word/document.xml", "w", force_zip64=True) as fh:
            block = b" " * (1 << 20)
            for _ in range(nbytes >> 20):
                fh.write(block)


def crashing_reader(path: str, data: bytes) -> str:
    """A reader that dies by a segmentation fault on files whose text says so."""
    import signal

    if b"SEGFAULT" in data:
        os.kill(os.getpid(), signal.SIGSEGV)
    return data.decode("utf-8")
