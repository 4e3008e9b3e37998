"""A Chroma server (``chroma run``, from the chromadb package) on 127.0.0.1 and a free port,
for tests: started, waited for, stopped (and restartable on the same port and data)."""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any

START_TIMEOUT = 60.0


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class ChromaServer:
    """``with ChromaServer(path) as server: server.url("collection")``."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.port = free_port()
        self.proc: subprocess.Popen[bytes] | None = None

    def url(self, collection: str) -> str:
        return f"chroma+http://127.0.0.1:{self.port}?collection={collection}"

    def start(self) -> None:
        chroma = shutil.which("chroma") or str(Path(sys.executable).with_name("chroma"))
        env = dict(os.environ, ANONYMIZED_TELEMETRY="False")
        self.proc = subprocess.Popen(
            [
                chroma,
                "run",
                "--path",
                str(self.path),
                "--host",
                "127.0.0.1",
                "--port",
                str(self.port),
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            env=env,
            start_new_session=True,
        )
        deadline = time.monotonic() + START_TIMEOUT
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"chroma run exited with {self.proc.returncode}")
            try:
                url = f"http://127.0.0.1:{self.port}/api/v2/heartbeat"
                with urllib.request.urlopen(url, timeout=1):
                    return
            except OSError:
                time.sleep(0.1)
        self.stop()
        raise RuntimeError(f"chroma run did not answer within {START_TIMEOUT}s")

    def kill(self) -> None:
        """SIGKILL the server (and anything it started)."""
        if self.proc is not None and self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait(10)
        self.proc = None

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait(10)
        self.proc = None

    def __enter__(self) -> ChromaServer:
        self.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.stop()
