"""Helpers for tests and the load benchmark: run ``ringgames serve`` in a child process on loopback."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Sequence
from pathlib import Path


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class ServerProcess:
    """``ringgames serve`` on 127.0.0.1 with the given database; ``kill()`` is a hard SIGKILL."""

    def __init__(self, db_url: str, *, port: int | None = None, ai_delay: float = 0.0, ai_workers: int = 1, log: Path | None = None,
                 extra_args: Sequence[str] = ()):
        self.db_url, self.ai_delay, self.ai_workers = db_url, ai_delay, ai_workers
        self.port = port or free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.proc: subprocess.Popen | None = None
        self.log = log
        self.extra_args = list(extra_args)  # more `ringgames serve` options

    def start(self, timeout: float = 30.0) -> ServerProcess:
        env = dict(os.environ)
        src = str(Path(__file__).resolve().parents[2])
        env["PYTHONPATH"] = src + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
        out = open(self.log, "ab") if self.log else subprocess.DEVNULL
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "ringgames", "serve", "--host", "127.0.0.1", "--port", str(self.port), "--db", self.db_url,
             "--ai-delay", str(self.ai_delay), "--ai-workers", str(self.ai_workers), *self.extra_args],
            stdout=out, stderr=subprocess.STDOUT, env=env, start_new_session=True,
        )
        deadline = time.time() + timeout
        while time.time() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"server exited with status {self.proc.returncode}" + (f"; see {self.log}" if self.log else ""))
            try:
                with urllib.request.urlopen(self.url + "/healthz", timeout=1) as r:
                    if r.status == 200:
                        return self
            except OSError:
                time.sleep(0.1)
        self.stop()
        raise RuntimeError(f"server did not answer on {self.url} within {timeout} s")

    def kill(self) -> None:
        """Kill the server and its computer-move workers at once (no clean shutdown)."""
        if self.proc and self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait(10)

    def stop(self) -> None:
        if self.proc and self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.kill()

    def __enter__(self) -> ServerProcess:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()
