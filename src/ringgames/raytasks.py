"""Games as Ray tasks: the ``--ray [ADDRESS]`` option of ``ringgames match``, ``strength`` and ``selfplay``.

Needs the optional ``ray`` extra (``pip install 'ringgames[ray]'``); nothing in the core imports this
module's ``ray`` at import time. Only Ray's public API is used: :func:`session` is ``ray.init`` /
``ray.shutdown`` around a run, :func:`imap_unordered` submits one ``@ray.remote(num_cpus=1)`` task per
job and yields the results with ``ray.wait`` as they finish (so progress bars and the strength ledger's
append-as-you-go work as with the local process pool).

Addresses (``docs/deploy.md``, *Ray*): ``HOST:PORT`` (a cluster's head node, the GCS port, 6379 by
default), ``ray://HOST:PORT`` (Ray Client, port 10001), ``auto`` (the cluster that ``ray start`` runs on
this machine) or ``local``; none: ``$RAY_ADDRESS`` if set, otherwise a new local Ray instance.
A ``HOST:PORT`` that nothing listens on is reported at once (``ray.init`` itself would retry for minutes).
"""

from __future__ import annotations

import importlib
import logging
import os
import socket
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from typing import Any

from .protocol import RingGamesError

__all__ = ["RAY_HINT", "RayError", "require_ray", "check_address", "session", "imap_unordered"]

#: What to install for ``--ray``.
RAY_HINT = "pip install 'ringgames[ray]'"
#: Seconds to wait for a TCP connection to a cluster's address before calling it unreachable.
PROBE_TIMEOUT = 5.0


class RayError(RingGamesError):
    """Ray is not installed, or the cluster cannot be reached."""


def require_ray() -> Any:
    """The ``ray`` module, or :class:`RayError` saying how to install it."""
    try:
        return importlib.import_module("ray")
    except ImportError as exc:
        raise RayError(f"--ray needs the optional package 'ray' ({exc}): {RAY_HINT} "
                       "(in a checkout: pip install -e '.[ray]')") from None


def _split_host_port(address: str) -> tuple[str, int]:
    rest = address.split("://", 1)[1] if "://" in address else address
    host, sep, port = rest.rpartition(":")
    if not sep or not host or not port.isdigit():
        raise RayError(f"bad Ray address {address!r}: give HOST:PORT (a head node's GCS port, 6379 by default), "
                       "ray://HOST:PORT (Ray Client), auto or local (--ray takes the next word as its address: "
                       "write --ray last or as --ray=ADDRESS)")
    return host.strip("[]"), int(port)


def _probe(address: str) -> None:
    """Fail fast when nothing listens at a ``HOST:PORT`` / ``ray://HOST:PORT`` address."""
    host, port = _split_host_port(address)
    try:
        with socket.create_connection((host, port), timeout=PROBE_TIMEOUT):
            pass
    except OSError as exc:
        raise RayError(f"cannot reach the Ray cluster at {address!r} ({exc}); start one with "
                       "'ray start --head' (docs/deploy.md, Ray) or run without an address for a local one") from None


def check_address(address: str | None) -> None:
    """:class:`RayError` at once for a malformed address or a ``HOST:PORT`` that nothing listens at."""
    addr = _resolve(address)
    if addr not in (None, "auto", "local"):
        _probe(addr)


def _resolve(address: str | None) -> str | None:
    """The ``address`` argument for ``ray.init``: None lets Ray read ``$RAY_ADDRESS``."""
    if address:
        return address.strip()
    return None if os.environ.get("RAY_ADDRESS") else "local"


@contextmanager
def session(address: str | None = None, num_cpus: int | None = None) -> Iterator[Any]:
    """Connect to (or start) a Ray cluster for the block and disconnect after it; yields ``ray``.

    An already initialised Ray (a test's session, a caller's own ``ray.init``) is used as it is and
    left running (a bad ``address`` is still an error). ``num_cpus`` limits a new local instance
    (ignored when connecting to a cluster). Raises :class:`RayError` when Ray is missing or the cluster cannot be reached.
    """
    ray = require_ray()
    check_address(address or os.environ.get("RAY_ADDRESS"))
    if ray.is_initialized():
        yield ray
        return
    addr = _resolve(address)
    kwargs: dict[str, Any] = {"logging_level": logging.WARNING, "log_to_driver": False}
    if addr == "local":  # a private instance: no dashboard, no notices about its defaults
        kwargs.update(include_dashboard=False, num_cpus=num_cpus, logging_level=logging.ERROR)
    try:
        ray.init(address=addr, **kwargs)
    except (ConnectionError, ValueError, RuntimeError, TimeoutError, ImportError) as exc:
        where = addr if addr is not None else f"$RAY_ADDRESS={os.environ.get('RAY_ADDRESS')}"
        if isinstance(exc, ImportError):
            hint = " (ray:// addresses need Ray Client: pip install 'ray[client]')"
        elif os.environ.get("RAY_AUTH_MODE") != "token":
            hint = (" (a cluster with token authentication, the default of 'ray start' in Ray 2.60, needs "
                    "RAY_AUTH_MODE=token here and its token in ~/.ray/auth_token or RAY_AUTH_TOKEN: docs/deploy.md, Ray)")
        else:
            hint = ""
        raise RayError(f"cannot connect to the Ray cluster at {where!r}: {str(exc)[:400]}{hint}") from None
    try:
        yield ray
    finally:
        ray.shutdown()


def imap_unordered(fn: Callable[..., Any], jobs: Iterable[tuple[Any, ...]]) -> Iterator[Any]:
    """``fn(*job)`` for each job as a Ray task with one CPU, results yielded as the tasks finish.

    Needs a Ray session (:func:`session`). A task's exception is raised here (Ray's error is an
    instance of the task's exception class). Tasks not yet done when the iterator is closed are
    cancelled.
    """
    ray = require_ray()
    remote = ray.remote(num_cpus=1)(fn)
    pending = [remote.remote(*job) for job in jobs]
    try:
        while pending:
            done, pending = ray.wait(pending, num_returns=1)
            for ref in done:
                yield ray.get(ref)
    finally:
        for ref in pending:
            ray.cancel(ref)
