"""Supervised worker processes: files are parsed and chunked in child processes, each file
under a time limit and a memory limit, so no file can stall or sink a run.

A :class:`Supervisor` keeps ``workers`` child processes. The parent sends each a file (its
path and the bytes it hashed), the child parses it with its reader, chunks it and sends the
store rows back; the parent yields the outcomes in the order the files were given, whatever
order they finish in, so a run's rows are those of one worker. The parent:

* stops a worker whose file takes longer than ``file_timeout`` seconds (``SIGKILL``) and
  reports the file as failed by ``file_timeout``;
* bounds a worker's memory: in the child, ``RLIMIT_AS`` (the address space) is set to the
  worker's own size when it is ready plus ``file_memory``, so an allocation past it fails in
  the child (a ``MemoryError``, or a parser's out-of-memory error), and the parent watches the
  child's resident size and stops it when it grows more than ``file_memory``; either way the
  file is reported as failed by ``file_memory`` (a native library that cannot allocate
  aborts: a worker under a memory limit that dies by ``SIGABRT`` is reported as over it);
* reports a worker that dies (a segmentation fault in a native library, ``SIGKILL``) as a
  failure of the file it held;

and replaces the worker each time, and goes on. Workers are started with ``forkserver``
(``spawn`` where it is missing, or when asked): a child forked from a parent whose native
thread pools ran would inherit pools without their threads. A worker also dies with its
parent (``PR_SET_PDEATHSIG`` on Linux, and end of file on its pipe everywhere).

>>> check_limits(30, "512M")
(30.0, 536870912)
>>> parse_memory("2GiB") == 2 * 1024**3
True
"""

from __future__ import annotations

import collections
import multiprocessing
import multiprocessing.connection
import os
import pickle
import re
import signal
import sys
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from ..core.errors import RagchunkError

__all__ = [
    "DEFAULT_FILE_MEMORY",
    "DEFAULT_FILE_TIMEOUT",
    "Outcome",
    "Supervisor",
    "Task",
    "check_limits",
    "parse_memory",
    "picklable",
]

#: ``file_timeout``'s default: seconds one file may take in a worker.
DEFAULT_FILE_TIMEOUT = 120.0
#: ``file_memory``'s default: bytes one file may take in a worker, beyond the worker's own.
DEFAULT_FILE_MEMORY = 2 * 1024**3

_UNITS = {"": 1, "k": 1024, "m": 1024**2, "g": 1024**3, "t": 1024**4}
# what the fork server imports for its workers (none of them starts a thread); pandas
# because pyarrow.array() imports it, when it is installed, on its first call
_PRELOAD: tuple[str, ...] = ("pyarrow", "pyarrow.parquet", "pyarrow.compute", "pandas")
_PRELOAD += ("ragchunk.io.arrow",)
_PRELOAD += ("ragchunk.documents",)
# how often the parent samples the busy workers' resident sizes
_WATCH_SECONDS = 0.05


def parse_memory(value: object, name: str = "file_memory") -> int:
    """Bytes from an int or a size such as ``"512M"``, ``"2G"``, ``"1.5GiB"`` (powers of
    1024); ``ValueError`` naming ``name`` for anything else or a size that is not positive.

    >>> parse_memory("1k"), parse_memory(4096)
    (1024, 4096)
    >>> parse_memory("0")
    Traceback (most recent call last):
    ...
    ValueError: file_memory must be a positive size (bytes, or e.g. '512M', '2G'), got '0'
    """
    bad = ValueError(f"{name} must be a positive size (bytes, or e.g. '512M', '2G'), got {value!r}")
    if isinstance(value, bool):
        raise bad
    if isinstance(value, int):
        size = value
    elif isinstance(value, str):
        m = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([kmgt]?)(?:i?b)?\s*", value.lower())
        if m is None:
            raise bad
        size = int(float(m.group(1)) * _UNITS[m.group(2)])
    else:
        raise TypeError(f"{name} must be an int or a str such as '2G', got {type(value).__name__}")
    if size <= 0:
        raise bad
    return size


def check_limits(file_timeout: object, file_memory: object) -> tuple[float | None, int | None]:
    """Validate the per-file limits: ``file_timeout`` seconds (a positive number) and
    ``file_memory`` (see :func:`parse_memory`); ``None`` is no limit.

    >>> check_limits(None, None)
    (None, None)
    >>> check_limits(0, None)
    Traceback (most recent call last):
    ...
    ValueError: file_timeout must be a positive number of seconds, got 0
    """
    timeout: float | None = None
    if file_timeout is not None:
        if isinstance(file_timeout, bool) or not isinstance(file_timeout, (int, float)):
            raise TypeError(f"file_timeout must be a number, got {type(file_timeout).__name__}")
        if not file_timeout > 0 or file_timeout == float("inf"):
            raise ValueError(
                f"file_timeout must be a positive number of seconds, got {file_timeout!r}"
            )
        timeout = float(file_timeout)
    memory = None if file_memory is None else parse_memory(file_memory)
    return timeout, memory


@dataclass
class Task:
    """One file for a worker: ``seq`` (its place in the run), its source id, path and bytes;
    ``payload`` rides along to its :class:`Outcome` untouched. A task with ``path=None`` is
    not sent anywhere: its outcome comes back in its place, with no rows."""

    seq: int
    source_id: str
    path: str | None
    data: bytes
    payload: Any = None


@dataclass
class Outcome:
    """What became of a :class:`Task`: ``rows`` (a ``pyarrow.Table`` of the store's rows) or
    ``error`` (the reason, naming the limit when one was passed), the document's ``pages``
    (0 for text), the pages it left ``unread`` (its ``metadata["needs_ocr"]``: no OCR engine,
    or the page's OCR failed), and the worker's ``cpu`` seconds on it."""

    task: Task
    rows: Any = None
    error: str | None = None
    pages: int = 0
    cpu: float = 0.0
    unread: tuple[int, ...] = ()


@dataclass
class _Setup:
    chunker: Any
    readers: Any
    config: str


def process_file(
    setup: _Setup, source_id: str, path: str, data: bytes
) -> tuple[Any, int, tuple[int, ...]]:
    """``(rows, pages, unread)`` of one file (``unread``: the page numbers it could not read),
    or ``(message, 0, ())`` when it fails: what a worker does (and what the parent does itself
    when there are no workers)."""
    from .rows import _chunk_rows, _Item
    from .sources import parse_file

    parsed = parse_file(path, data, setup.readers)
    if isinstance(parsed, str):
        return parsed, 0, ()
    text, meta = parsed
    pages = 0 if isinstance(text, str) else len(getattr(text, "pages", ()) or ())
    doc_meta = getattr(text, "metadata", None)
    unread = tuple(doc_meta.get("needs_ocr", ())) if isinstance(doc_meta, dict) else ()
    item = _Item(source_id, "", text, meta, len(data), True)
    try:
        return _chunk_rows(setup.chunker, [item], setup.config, 1), pages, unread
    except (TypeError, ValueError, UnicodeError) as exc:
        return f"{path}: {exc}", 0, ()


def picklable(obj: object) -> bool:
    """Whether ``obj`` pickles (what a worker needs of the chunker and the readers).

    >>> picklable(len), picklable(lambda x: x)
    (True, False)
    """
    try:
        pickle.dumps(obj)
    except Exception:  # a lambda, a local function, an open handle...
        return False
    return True


def _die_with_parent() -> None:
    if sys.platform.startswith("linux"):
        try:
            import ctypes

            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
        except (OSError, AttributeError):  # pragma: no cover - not glibc
            pass


def _vm_size() -> int | None:
    try:
        with open(f"/proc/{os.getpid()}/statm") as fh:
            return int(fh.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError):
        return None


def _warm_up(setup: _Setup) -> None:
    """Import what parsing needs, and chunk a line (which loads the chunker's tokenizer),
    before the first file's clock starts."""
    from ..core.optional import pyarrow as _pyarrow
    from .sources import documents_available

    _pyarrow()
    if documents_available():
        import ragchunk.documents  # noqa: F401
    from .rows import _chunk_rows, _Item

    try:  # the chunker alone (no reader: a reader of the user's runs on files only)
        _chunk_rows(setup.chunker, [_Item("warm-up", "", "Warm up.", {}, 8, True)], "", 1)
    except Exception:  # the first real file reports any error
        pass


def _worker_main(conn: Any, setup_bytes: bytes, file_memory: int | None) -> None:
    """A worker's life: warm up, limit its memory, then parse and chunk files until told to
    stop (``None``) or its pipe closes."""
    _die_with_parent()
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle
    setup = pickle.loads(setup_bytes)
    _warm_up(setup)
    if file_memory is not None:
        import resource

        base = _vm_size()
        if base is not None:
            limit = base + file_memory
            resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    conn.send(("ready", os.getpid()))
    while True:
        try:
            msg = conn.recv()
        except (EOFError, OSError):
            return
        if msg is None:
            return
        seq, source_id, path, data = msg
        cpu = time.process_time()
        try:
            out, pages, unread = process_file(setup, source_id, path, data)
        except MemoryError:
            out, pages, unread = (
                f"{path}: file_memory: over the limit of {_mib(file_memory)}",
                -1,
                (),
            )
        del data
        cpu = time.process_time() - cpu
        if isinstance(out, str):
            conn.send(("fail", seq, out, pages, cpu))
            if pages == -1:
                return  # out of memory: a fresh worker takes the next file
        else:
            conn.send(("ok", seq, out, (pages, unread), cpu))


def _mib(n: int | None) -> str:
    return "none" if n is None else f"{n / 1024**2:.0f} MiB"


def _sizes(pid: int) -> tuple[int, int] | None:
    """``(address space, resident)`` bytes of a process, or None."""
    try:
        with open(f"/proc/{pid}/statm") as fh:
            vm, rss = fh.read().split()[:2]
    except (OSError, ValueError):
        return None
    page = os.sysconf("SC_PAGE_SIZE")
    return int(vm) * page, int(rss) * page


class _Worker:
    def __init__(self, ctx: Any, setup_bytes: bytes, file_memory: int | None) -> None:
        self.conn, child = ctx.Pipe(duplex=True)
        self.proc = ctx.Process(
            target=_worker_main, args=(child, setup_bytes, file_memory), daemon=True
        )
        self.proc.start()
        child.close()
        self.ready = False
        self.task: Task | None = None
        self.deadline = float("inf")
        self.base: tuple[int, int] | None = None  # sizes when its file was sent
        self.grown = 0  # the most its address space grew over ``base`` (sampled)

    def stop(self) -> None:
        if self.proc.is_alive():
            self.proc.kill()
        self.proc.join(5)
        self.conn.close()


def default_start_method() -> str:
    """``forkserver`` where the system has it, else ``spawn`` (never plain ``fork``: see the
    module docstring).

    >>> default_start_method() in ("forkserver", "spawn")
    True
    """
    methods = multiprocessing.get_all_start_methods()
    return "forkserver" if "forkserver" in methods else "spawn"


class Supervisor:
    """``workers`` processes that parse and chunk files under the per-file limits (see the
    module docstring). :meth:`map` yields an :class:`Outcome` per :class:`Task`, in order.

    Args:
        workers: the number of worker processes (started as files arrive, never more than
            there are files).
        chunker, readers, config: what the workers parse and chunk with (pickled once per
            worker).
        file_timeout: seconds a file may take (None: no limit).
        file_memory: bytes a file may take beyond the idle worker's size (None: no limit).
        start_method: ``"forkserver"``, ``"spawn"`` (default: :func:`default_start_method`).
        inline: run in this process, without limits (for readers that cannot be pickled).

    >>> import ragchunk
    >>> with Supervisor(1, ragchunk.RecursiveSplitter(2), None, "c", inline=True) as sup:
    ...     [o.rows.num_rows for o in sup.map([Task(0, "a.md", "a.md", b"One. Two. Three.")])]
    [9]
    """

    def __init__(
        self,
        workers: int,
        chunker: Any,
        readers: Any,
        config: str,
        *,
        file_timeout: float | None = DEFAULT_FILE_TIMEOUT,
        file_memory: int | None = DEFAULT_FILE_MEMORY,
        start_method: str | None = None,
        inline: bool = False,
    ) -> None:
        if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
            raise ValueError(f"workers must be an int >= 1, got {workers!r}")
        self.workers = workers
        self.file_timeout, self.file_memory = check_limits(file_timeout, file_memory)
        self.setup = _Setup(chunker, readers, config)
        self.inline = inline
        self.start_method = start_method or default_start_method()
        if self.start_method not in ("forkserver", "spawn"):
            raise ValueError(f"start_method must be 'forkserver' or 'spawn', got {start_method!r}")
        self._setup_bytes = b"" if inline else pickle.dumps(self.setup)
        self._ctx: Any = None
        self._pool: list[_Worker] = []
        self.started = 0  # workers started, replacements included

    def __enter__(self) -> Supervisor:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Stop every worker (those idle get ``None`` and exit; the others are killed)."""
        for w in self._pool:
            if w.task is None and w.ready:
                try:
                    w.conn.send(None)
                except OSError:
                    pass
                w.proc.join(1)
            w.stop()
        self._pool = []

    def _context(self) -> Any:
        if self._ctx is None:
            ctx = multiprocessing.get_context(self.start_method)
            if self.start_method == "forkserver":
                # the server imports these once; every worker forked from it starts warm
                # (a module that is not installed is skipped)
                ctx.set_forkserver_preload([__name__, *_PRELOAD])
            self._ctx = ctx
        return self._ctx

    def _start(self) -> _Worker:
        w = _Worker(self._context(), self._setup_bytes, self.file_memory)
        self.started += 1
        self._pool.append(w)
        return w

    def _replace(self, w: _Worker) -> None:
        self._pool.remove(w)
        w.stop()

    def map(self, tasks: Iterable[Task]) -> Iterator[Outcome]:
        """The outcome of every task, in the order of ``tasks`` (read lazily: at most a few
        tasks per worker are held at a time)."""
        if self.inline:
            for task in tasks:
                yield self._inline(task)
            return
        todo = iter(tasks)
        queue: collections.deque[Task] = collections.deque()
        done: dict[int, Outcome] = {}
        order: collections.deque[int] = collections.deque()  # seqs not yet yielded
        window = 4 * self.workers
        exhausted = False
        while True:
            while not exhausted and len(order) < window:
                got = next(todo, None)
                if got is None:
                    exhausted = True
                    break
                task = got
                order.append(task.seq)
                if task.path is None:
                    done[task.seq] = Outcome(task)
                else:
                    queue.append(task)
            while order and order[0] in done:
                yield done.pop(order.popleft())
            if not order and exhausted:
                return
            self._dispatch(queue)
            self._wait(done)

    def _inline(self, task: Task) -> Outcome:
        if task.path is None:
            return Outcome(task)
        cpu = time.process_time()
        out, pages, unread = process_file(self.setup, task.source_id, task.path, task.data)
        cpu = time.process_time() - cpu
        if isinstance(out, str):
            return Outcome(task, error=out, cpu=cpu)
        return Outcome(task, rows=out, pages=pages, cpu=cpu, unread=unread)

    def _dispatch(self, queue: collections.deque[Task]) -> None:
        idle = [w for w in self._pool if w.ready and w.task is None]
        starting = sum(1 for w in self._pool if not w.ready)
        while queue and idle:
            w = idle.pop()
            task = queue.popleft()
            try:
                w.conn.send((task.seq, task.source_id, task.path, task.data))
            except OSError:  # it died idle: put the task back, replace the worker
                queue.appendleft(task)
                self._replace(w)
                continue
            w.task = task
            w.deadline = time.monotonic() + self.file_timeout if self.file_timeout else float("inf")
            w.base, w.grown = _sizes(w.proc.pid), 0
        want = min(self.workers, len(self._pool) + len(queue) - starting)
        while len(self._pool) < want:
            self._start()

    def _wait(self, done: dict[int, Outcome]) -> None:
        if not self._pool:
            return
        now = time.monotonic()
        deadline = min(w.deadline for w in self._pool)
        timeout = max(0.0, deadline - now)
        if self.file_memory is not None:
            timeout = min(timeout, _WATCH_SECONDS)
        waits: dict[Any, _Worker] = {}
        for w in self._pool:
            waits[w.conn] = w
            waits[w.proc.sentinel] = w
        ready = multiprocessing.connection.wait(list(waits), timeout=min(timeout, 3600.0))
        handled: set[int] = set()
        for obj in ready:
            w = waits[obj]
            if id(w) in handled:
                continue
            handled.add(id(w))
            self._receive(w, done)
        now = time.monotonic()
        for w in list(self._pool):
            if w.task is None:
                continue
            if now >= w.deadline:
                self._fail(
                    w,
                    done,
                    f"file_timeout: stopped after {self.file_timeout:g} s "
                    "(the file took longer than the limit)",
                )
            elif self.file_memory is not None and w.base is not None:
                sizes = _sizes(w.proc.pid)
                if sizes is None:
                    continue
                w.grown = max(w.grown, sizes[0] - w.base[0])
                if sizes[1] - w.base[1] > self.file_memory:
                    self._fail(
                        w,
                        done,
                        f"file_memory: stopped at {_mib(sizes[1] - w.base[1])} over the "
                        f"worker's own size (the limit is {_mib(self.file_memory)})",
                    )

    def _receive(self, w: _Worker, done: dict[int, Outcome]) -> None:
        try:
            msg = w.conn.recv() if w.conn.poll() else None
        except (EOFError, OSError):
            msg = None
        if msg is None:
            if w.proc.is_alive():
                return  # the sentinel fired before the message: nothing to do yet
            w.proc.join(1)
            if not w.ready:
                self._replace(w)
                raise RagchunkError(
                    f"an ingest worker exited while starting (exit code {w.proc.exitcode}); "
                    "is file_memory large enough for the worker's libraries?"
                )
            death = _death(w.proc.exitcode)
            code = w.proc.exitcode
            aborted = code is not None and -code in (signal.SIGABRT, signal.SIGTRAP)
            if self.file_memory is not None and (aborted or w.grown >= self.file_memory // 2):
                # a native library that cannot allocate under RLIMIT_AS aborts (PDFium,
                # C++'s bad_alloc): the allocation past the limit is the likely cause
                reason = (
                    f"file_memory: the worker aborted ({death}), most likely on an "
                    f"allocation past the limit of {_mib(self.file_memory)}"
                )
            else:
                reason = f"the worker crashed ({death})"
            self._fail(w, done, reason)
            return
        kind = msg[0]
        if kind == "ready":
            w.ready = True
            return
        _, seq, out, pages, cpu = msg
        task = w.task
        assert task is not None and task.seq == seq
        w.task, w.deadline = None, float("inf")
        if kind == "ok":
            count, unread = pages
            done[seq] = Outcome(task, rows=out, pages=count, cpu=cpu, unread=tuple(unread))
        else:
            done[seq] = Outcome(task, error=out, cpu=cpu)
            if pages == -1:
                self._replace(w)

    def _fail(self, w: _Worker, done: dict[int, Outcome], reason: str) -> None:
        task = w.task
        self._replace(w)
        if task is not None:
            done[task.seq] = Outcome(task, error=f"{task.path}: {reason}")


def _death(code: int | None) -> str:
    if code is not None and code < 0:
        try:
            return f"signal {signal.Signals(-code).name}"
        except ValueError:
            return f"signal {-code}"
    return f"exit code {code}"
