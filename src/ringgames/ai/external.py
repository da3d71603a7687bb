"""An external engine as a player: ``engine:CMD[;key=value,...]``.

The agent starts ``CMD`` (split like a shell would, but run without one), talks
the engine protocol of ``docs/engine.md`` to it (``rgi`` … ``rgiok``, the game,
variant and number of players, ``isready``, ``newgame``) and, for every
decision, sends ``position startpos moves …`` (or ``position fen …`` from a set-up
start) and ``go`` with its limits, and reads ``bestmove``.

Options after the last ``;``: ``movetime`` (ms per decision; the default, 1000,
when no other limit is given), ``depth``, ``nodes`` (sent as ``go`` limits),
``timeout`` (seconds to wait for any reply, the start-up handshake included, at most a day; default: twice
the movetime plus 10 s, or 120 s with depth/nodes only, and 120 s for the start-up), ``seed`` (sent as ``setoption name seed`` when the engine
has that option). A comma ends a value: an option's value cannot hold one. Any other ``key=value`` is sent as ``setoption name key value value``
and must be an option the engine announced: ``engine:ringgames engine;level=2``.

Every ``bestmove`` is checked against the rules: an illegal or unreadable move, the
engine's exit or a reply later than ``timeout`` raise :class:`~ringgames.ai.agents.AgentError`,
which ends the game as an error (not a result). :meth:`EngineAgent.close` ends the
process (``quit``, then terminate, then kill) and then whatever it had started that is still running (found in
``/proc`` before it ends: an engine that a wrapper script started without ``exec`` goes with the script); matches
call it after every game. The engine stays in the controller's process group, so a signal to the group (``timeout``,
a terminal's Ctrl-C) reaches it too.
"""

from __future__ import annotations

import collections
import os
import queue
import shlex
import signal
import subprocess
import threading
import time
from collections.abc import Callable
from typing import IO

from ..protocol import Game, RingGamesError, State
from ..textbounds import bounded_lines
from .agents import AgentError

__all__ = ["EngineAgent"]

#: Seconds an engine gets to start and answer ``rgi`` / ``isready`` (numba may compile on a cold cache).
STARTUP_TIMEOUT = 120.0
#: The longest line read from an engine (characters; a longer one is dropped unread, in bounded memory).
MAX_ENGINE_LINE = 100_000
#: The most lines read from an engine and not yet taken (then it waits to write: bounded memory for a flood).
MAX_QUEUED_LINES = 1_000
#: The most lines an engine may send before ``rgiok`` or ``readyok`` (its ``id`` and ``option`` lines).
MAX_HANDSHAKE_LINES = 10_000
#: The longest engine option (name and value together, characters).
MAX_OPTION = 1_000
#: The longest ``timeout=`` (seconds): a day.
MAX_TIMEOUT = 86_400.0
_MAX_QUOTE = 80


def _q(text: str) -> str:
    return repr(text if len(text) <= _MAX_QUOTE else text[:_MAX_QUOTE] + "…")


def _start_time(pid: int) -> int | None:
    """When process ``pid`` started (clock ticks since boot, from ``/proc``), or None if it is gone or unknown."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            fields = f.read().rsplit(b")", 1)[1].split()
        return int(fields[19])
    except (OSError, IndexError, ValueError):
        return None


def _descendants(pid: int, limit: int = 1000) -> list[tuple[int, int]]:
    """``(pid, start time)`` of the processes below ``pid`` (children, their children…) as ``/proc`` shows them now;
    [] where there is no ``/proc``. At most ``limit``."""
    parents: dict[int, list[int]] = {}
    try:
        names = os.listdir("/proc")
    except OSError:
        return []
    for name in names:
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as f:
                ppid = int(f.read().rsplit(b")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            continue
        parents.setdefault(ppid, []).append(int(name))
    out: list[tuple[int, int]] = []
    todo = list(parents.get(pid, ()))
    while todo and len(out) < limit:
        child = todo.pop()
        start = _start_time(child)
        if start is not None:
            out.append((child, start))
        todo += parents.get(child, ())
    return out


class EngineAgent:
    """A program speaking the engine protocol, as an :class:`~ringgames.ai.agents.Agent`."""

    def __init__(self, command: str = "", movetime: int | None = None, depth: int | None = None,
                 nodes: int | None = None, timeout: float | None = None, seed: int | None = None,
                 **options: object):
        try:
            self.argv = shlex.split(str(command))
        except ValueError as exc:
            raise ValueError(f"engine command {_q(str(command))}: {exc}") from None
        if not self.argv:
            raise ValueError("engine: give a command, e.g. engine:ringgames engine")
        limits = {k: v for k, v in (("movetime", movetime), ("depth", depth), ("nodes", nodes)) if v is not None}
        for k, v in limits.items():
            if isinstance(v, bool) or not isinstance(v, int) or v <= 0:
                raise ValueError(f"engine option {k} must be a positive integer, not {_q(str(v))}")
        if limits.get("movetime", 0) > MAX_TIMEOUT * 1000:
            raise ValueError(f"engine option movetime is at most {MAX_TIMEOUT * 1000:,.0f} (ms: a day), "
                             f"not {limits['movetime']}")
        if not limits:
            limits = {"movetime": 1000}
        self.limits = limits
        if timeout is not None and (isinstance(timeout, bool) or not isinstance(timeout, (int, float))
                                    or not 0 < timeout <= MAX_TIMEOUT):  # nan, inf and 1e300 too
            raise ValueError(f"engine option timeout must be a number of seconds above 0 and at most "
                             f"{MAX_TIMEOUT:,.0f}, not {_q(str(timeout))}")
        # a timeout given by the user bounds every wait, the start-up handshake included; the default
        # leaves the start-up STARTUP_TIMEOUT (an engine may compile its kernels on a cold cache)
        self.startup_timeout = STARTUP_TIMEOUT if timeout is None else float(timeout)
        if timeout is None:
            timeout = 2 * limits["movetime"] / 1000 + 10 if "movetime" in limits else 120.0
        self.timeout = float(timeout)
        self.seed = seed
        self.options = {str(k): str(v) for k, v in options.items()}
        for name, value in self.options.items():  # a line to the engine stays far below a pipe's buffer
            if len(name) + len(value) > MAX_OPTION:
                raise ValueError(f"engine option {_q(name)}: at most {MAX_OPTION:,} characters with its value, "
                                 f"not {len(name) + len(value):,}")
        self.name = "engine:" + " ".join(self.argv)
        self.proc: subprocess.Popen | None = None
        self._lines: queue.Queue = queue.Queue(MAX_QUEUED_LINES)
        self._gone = threading.Event()  # set by close(): the reader drops what the process still sends
        self._stderr: collections.deque = collections.deque(maxlen=5)
        self._game: Game | None = None
        self.announced: set[str] = set()
        self.last_info: str | None = None
        self._shadow: tuple | None = None
        self._odd: str | None = None  # the last line of a search's output that is none of the protocol's

    # -- process -------------------------------------------------------------------
    def _send(self, line: str) -> None:
        assert self.proc is not None and self.proc.stdin is not None
        try:
            self.proc.stdin.write(line + "\n")
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError, ValueError):
            raise AgentError(f"engine {_q(self.name)} is gone ({self._exit_note()})") from None

    def _exit_note(self) -> str:
        code = self.proc.poll() if self.proc is not None else None
        note = "still running" if code is None else f"exit code {code}"
        if self._stderr:
            note += "; stderr: " + " | ".join(self._stderr)
        return note[:300]

    def _read(self, deadline: float, what: str) -> str:
        """The next line from the engine, or AgentError when it exits or ``deadline`` passes."""
        left = deadline - time.monotonic()
        try:
            line = self._lines.get(timeout=max(0.0, left))
        except queue.Empty:
            odd = f" (the last line it sent that is not the protocol's: {_q(self._odd)})" if self._odd else ""
            raise AgentError(f"engine {_q(self.name)} did not answer {what} in time{odd}") from None
        if line is None:
            time.sleep(0.05)  # let the exit code settle
            gone = "exited" if self.proc is None or self.proc.poll() is not None else "closed its output"
            raise AgentError(f"engine {_q(self.name)} {gone} while waiting for {what} ({self._exit_note()})")
        return line

    def _expect(self, word: str, deadline: float) -> list[str]:
        """Lines up to (not including) the line ``word``; an ``info string error`` on the way is an AgentError."""
        seen: list[str] = []
        while True:
            line = self._read(deadline, word)
            if line == word:
                return seen
            if line.startswith("info string error:"):
                raise AgentError(f"engine {_q(self.name)}: {line[len('info string '):][:200]}")
            if len(seen) >= MAX_HANDSHAKE_LINES:  # bounded memory for an engine that floods its handshake
                raise AgentError(f"engine {_q(self.name)} sent more than {MAX_HANDSHAKE_LINES:,} lines before "
                                 f"{word}")
            seen.append(line)

    def _start(self, game: Game) -> None:
        self.close()
        self._lines = queue.Queue(MAX_QUEUED_LINES)
        self._gone = gone = threading.Event()
        self._stderr.clear()
        try:
            # errors="replace": bytes that are not UTF-8 become U+FFFD, so such a reply is an unreadable move, not
            # an end of output
            self.proc = subprocess.Popen(self.argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                         stderr=subprocess.PIPE, text=True, encoding="utf-8", errors="replace",
                                         bufsize=1)
        except OSError as exc:
            raise AgentError(f"cannot start engine {_q(self.name)}: {exc}") from None

        def pump(stream: IO[str], sink: Callable[[str | None], None], eof: bool) -> None:
            try:
                for line in bounded_lines(stream, MAX_ENGINE_LINE):  # a line that never ends: bounded memory
                    sink(line if isinstance(line, str) else "")  # an over-long line says nothing we can read
            except (OSError, ValueError):  # closed under us
                pass
            finally:
                try:
                    stream.close()  # here, not in close(): closing a pipe that a reader is blocked on would wait
                except OSError:
                    pass
            if eof:
                sink(None)

        lines = self._lines

        def put(line: str | None) -> None:  # waits while the queue is full (the engine then waits to write)
            while not gone.is_set():
                try:
                    lines.put(line, timeout=0.2)
                    return
                except queue.Full:
                    pass

        threading.Thread(target=pump, args=(self.proc.stdout, put, True), daemon=True).start()
        threading.Thread(target=pump, args=(self.proc.stderr, self._stderr.append, False), daemon=True).start()
        deadline = time.monotonic() + self.startup_timeout
        self._send("rgi")
        self.announced = set()
        for line in self._expect("rgiok", deadline):
            parts = line.split()
            if len(parts) >= 3 and parts[0] == "option" and parts[1] == "name":
                self.announced.add(parts[2].lower())
        settings = [("game", game.name)]
        if "variant" in self.announced:
            settings.append(("variant", game.variant))
        if "players" in self.announced:
            settings.append(("players", str(game.num_players)))
        elif game.num_players != game.player_range[0]:
            raise AgentError(f"engine {_q(self.name)} has no players option")
        if self.seed is not None and "seed" in self.announced:
            settings.append(("seed", str(self.seed)))
        for name, value in self.options.items():
            if name.lower() not in self.announced:
                raise AgentError(f"engine {_q(self.name)} has no option {_q(name)}")
            settings.append((name, value))
        for name, value in settings:
            self._send(f"setoption name {name} value {value}")
        self._send("isready")
        self._expect("readyok", deadline)
        self._game = game

    def check(self, game: Game) -> None:
        """Start the engine for ``game``, set its options and wait for ``readyok``, then end it: what every game of a
        match would find wrong with the command or an option (AgentError), found once before the first."""
        try:
            self._start(game)
        finally:
            self.close()

    def close(self) -> None:
        """End the engine process: ``quit``, then terminate, then kill (no orphans)."""
        proc, self.proc = self.proc, None
        self._game = None
        self._gone.set()
        if proc is None:
            return
        children = _descendants(proc.pid)  # before it ends: then they would belong to init
        try:
            if proc.poll() is None and proc.stdin is not None:
                proc.stdin.write("quit\n")
                proc.stdin.flush()
        except (BrokenPipeError, OSError, ValueError):
            pass
        for step in (proc.terminate, proc.kill):
            try:
                proc.wait(timeout=3)
                break
            except subprocess.TimeoutExpired:
                step()
        else:
            proc.wait(timeout=3)
        for pid, start in children:  # what the engine started (a wrapper script's child) goes with it
            if _start_time(pid) == start:  # the same process, not a new one with its number
                try:
                    os.kill(pid, signal.SIGKILL)
                except OSError:
                    pass
        try:
            if proc.stdin is not None:
                proc.stdin.close()
        except OSError:
            pass

    def __del__(self) -> None:  # a forgotten close must not leave the process behind
        try:
            self.close()
        except Exception:
            pass

    # -- agent -----------------------------------------------------------------------
    def new_game(self, game: Game) -> None:
        """Start the process if needed (or restart it for another game) and send ``newgame``."""
        if self.proc is None or self.proc.poll() is not None or self._game != game:
            self._start(game)
        self._send("newgame")

    def _moves(self, state: State, start: str | None) -> list[str]:
        """The history in notation; kept between decisions so that a game needs no replay per move."""
        shadow = self._shadow
        hist = state.history
        if (shadow is None or shadow[0] != (state.game, start) or len(hist) < len(shadow[1].history)
                or hist[: len(shadow[1].history)] != shadow[1].history or any(a < 0 for a in hist)):
            names = state.action_strings()
            self._shadow = None if any(a < 0 for a in hist) else ((state.game, start), state.clone(), names)
            return list(names)
        _, mirror, names = shadow
        for a in hist[len(mirror.history):]:
            names.append(mirror.action_to_string(a))
            mirror.apply_action(a)
        return list(names)

    def choose(self, state: State) -> int:
        if self.proc is None or self.proc.poll() is not None or self._game != state.game:
            self.new_game(state.game)
        start = state._start_position() if hasattr(state, "_start_position") else None
        moves = self._moves(state, start)
        pos = "position startpos" if start is None else f"position fen {start}"
        self._send(pos + (" moves " + " ".join(moves) if moves else ""))
        self._send("go " + " ".join(f"{k} {v}" for k, v in self.limits.items()))
        deadline = time.monotonic() + self.timeout
        self._odd = None
        while True:
            line = self._read(deadline, "go")
            if line.startswith("info string error:"):
                raise AgentError(f"engine {_q(self.name)}: {line[len('info string '):][:200]}")
            if line.startswith("info"):
                self.last_info = line[:500]
                continue
            if line.strip() and not line.startswith("bestmove"):  # ignored, as UCI does; named if time runs out
                self._odd = line[:200]
            if line.startswith("bestmove"):
                parts = line.split()
                move = parts[1] if len(parts) > 1 else ""
                try:
                    return state.string_to_action(move)
                except RingGamesError as exc:
                    raise AgentError(f"engine {_q(self.name)} sent an illegal move {_q(move)}: "
                                     f"{str(exc)[:150]}") from None
