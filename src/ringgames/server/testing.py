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


# -- throwaway PostgreSQL and Redis servers on loopback (tests and the load benchmark; Debian's packages) -------------

class ServiceMissing(RuntimeError):
    """The server program is not installed (``scripts/test`` installs Debian's packages when run as root)."""


def _postgres_bin() -> Path:
    found = sorted(Path("/usr/lib/postgresql").glob("*/bin/postgres"), key=lambda p: int(p.parts[-3]) if p.parts[-3].isdigit() else 0)
    if not found:
        raise ServiceMissing("PostgreSQL is not installed (Debian package `postgresql`: /usr/lib/postgresql/*/bin/postgres)")
    return found[-1].parent


def _wait_port(port: int, proc: subprocess.Popen, what: str, log: Path, timeout: float = 30.0) -> None:
    deadline = time.time() + timeout
    while time.time() < deadline:
        if proc.poll() is not None:
            tail = log.read_text(errors="replace")[-2000:] if log.exists() else ""
            raise RuntimeError(f"{what} exited with status {proc.returncode}: {tail}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError(f"{what} did not listen on 127.0.0.1:{port} within {timeout} s; see {log}")


class PostgresServer:
    """A PostgreSQL cluster of its own in ``root`` (a fresh directory), listening on 127.0.0.1 only, trust auth for the
    user ``ringgames``, durability off (a test server). Run as root, the cluster belongs to the ``postgres`` user
    (PostgreSQL refuses to run as root). ``create_database()`` gives a URL of a new empty database."""

    def __init__(self, root: Path, port: int | None = None):
        self.root = Path(root)
        self.port = port or free_port()
        self.proc: subprocess.Popen | None = None
        self._n = 0

    def _as_owner(self) -> list[str]:
        return ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []

    def start(self) -> PostgresServer:
        bindir = _postgres_bin()
        data, sock, log = self.root / "data", self.root / "sock", self.root / "postgres.log"
        self.root.mkdir(parents=True, exist_ok=True)
        sock.mkdir(exist_ok=True)
        if os.geteuid() == 0:
            import shutil
            shutil.chown(self.root, "postgres")
            shutil.chown(sock, "postgres")
        subprocess.run([*self._as_owner(), str(bindir / "initdb"), "-D", str(data), "-U", "ringgames", "-A", "trust",
                        "-E", "UTF8", "--no-sync"], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        out = open(log, "ab")
        self.proc = subprocess.Popen(
            [*self._as_owner(), str(bindir / "postgres"), "-D", str(data), "-p", str(self.port), "-h", "127.0.0.1",
             "-k", str(sock), "-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off",
             "-c", "max_connections=300"],
            stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
        _wait_port(self.port, self.proc, "postgres", log)
        self._wait_ready()
        return self

    def _wait_ready(self, timeout: float = 30.0) -> None:
        import psycopg
        deadline = time.time() + timeout
        while True:
            try:
                with psycopg.connect(self.admin_dsn, connect_timeout=2):
                    return
            except psycopg.OperationalError:
                if time.time() > deadline:
                    raise
                time.sleep(0.1)

    @property
    def admin_dsn(self) -> str:
        return f"postgresql://ringgames@127.0.0.1:{self.port}/postgres"

    def url(self, db: str) -> str:
        return f"postgresql+psycopg://ringgames@127.0.0.1:{self.port}/{db}"

    def create_database(self, name: str | None = None) -> str:
        import psycopg
        self._n += 1
        name = name or f"t{os.getpid()}_{self._n}"
        with psycopg.connect(self.admin_dsn, autocommit=True) as c:
            c.execute(f'CREATE DATABASE "{name}"')
        return self.url(name)

    def stop(self) -> None:
        """Fast shutdown, and wait until the server is gone. As root the process started is ``runuser``, which exits on
        SIGINT without passing it on: the signal goes to the whole process group (its own session), and the server
        counts as gone when its ``postmaster.pid`` is (else SIGKILL to the group after 15 s)."""
        if self.proc is None:
            return
        pid_file = self.root / "data" / "postmaster.pid"
        try:
            os.killpg(self.proc.pid, signal.SIGINT)  # fast shutdown
        except ProcessLookupError:
            pass
        deadline = time.time() + 15
        while pid_file.exists() and time.time() < deadline:
            time.sleep(0.05)
        if pid_file.exists():
            try:
                os.killpg(self.proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        try:
            self.proc.wait(5)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(5)

    def __enter__(self) -> PostgresServer:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()


class RedisServer:
    """A Redis server of its own on 127.0.0.1 (no persistence, protected mode on, a directory of its own)."""

    def __init__(self, root: Path, port: int | None = None):
        self.root = Path(root)
        self.port = port or free_port()
        self.proc: subprocess.Popen | None = None
        self._n = 0

    def start(self) -> RedisServer:
        import shutil
        exe = shutil.which("redis-server")
        if not exe:
            raise ServiceMissing("Redis is not installed (Debian package `redis-server`)")
        self.root.mkdir(parents=True, exist_ok=True)
        log = self.root / "redis.log"
        out = open(log, "ab")
        self.proc = subprocess.Popen(
            [exe, "--bind", "127.0.0.1", "--port", str(self.port), "--save", "", "--appendonly", "no",
             "--dir", str(self.root), "--databases", "64"],
            stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
        _wait_port(self.port, self.proc, "redis-server", log)
        return self

    def url(self, db: int = 0) -> str:
        return f"redis://127.0.0.1:{self.port}/{db}"

    def fresh_url(self) -> str:
        """A URL of a logical database no earlier caller got (1..63; database 0 is left for shared use)."""
        self._n = self._n % 63 + 1
        import redis
        redis.Redis.from_url(self.url(self._n)).flushdb()
        return self.url(self._n)

    def stop(self) -> None:
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)

    def __enter__(self) -> RedisServer:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()
