"""The engine protocol (``ringgames engine``, docs/engine.md) through a pipe, and external engines
(``engine:CMD``) as players in matches.

Searches are bounded by depth or nodes (not seconds) so that results are reproducible.
"""

from __future__ import annotations

import io
import json
import os
import queue
import random
import re
import subprocess
import sys
import textwrap
import threading
import time

import pytest

from ringgames import load_game
from ringgames.ai.agents import make_agent, parse_spec, with_seed
from ringgames.ai.levels import BASELINES, LEVELS, spec_for
from ringgames.ai.match import play_game, summarise
from ringgames.ai.tactics import winning_action
from ringgames.engine import MAX_ENGINE_THREADS

GYGES_WIN = "320001/200000/012030/020003/000000/310100 S"  # as tests/ai/conftest.py: South wins in one

ENGINE = [sys.executable, "-m", "ringgames", "engine"]
ENGINE_CMD = " ".join(ENGINE)


class Pipe:
    """A ``ringgames engine`` process with a reader thread (so reads can time out)."""

    def __init__(self, *args: str):
        self.proc = subprocess.Popen(ENGINE + list(args), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, text=True, bufsize=1)
        self.lines: queue.Queue = queue.Queue()
        threading.Thread(target=self._pump, daemon=True).start()

    def _pump(self) -> None:
        for line in self.proc.stdout:
            self.lines.put(line.rstrip("\n"))
        self.lines.put(None)

    def send(self, line: str) -> None:
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()

    def read(self, timeout: float = 120.0) -> str:
        line = self.lines.get(timeout=timeout)
        assert line is not None, f"engine exited: {self.proc.stderr.read()[-2000:]}"
        return line

    def until(self, prefix: str, timeout: float = 120.0) -> list[str]:
        """Lines up to and including the first that starts with ``prefix``."""
        out = []
        end = time.monotonic() + timeout
        while True:
            line = self.read(max(0.1, end - time.monotonic()))
            out.append(line)
            if line.startswith(prefix):
                return out

    def ask(self, line: str, prefix: str, timeout: float = 120.0) -> list[str]:
        self.send(line)
        return self.until(prefix, timeout)

    def close(self) -> int:
        try:
            self.send("quit")
        except (BrokenPipeError, OSError):
            pass
        return self.proc.wait(timeout=30)


@pytest.fixture
def pipe():
    p = Pipe()
    yield p
    if p.proc.poll() is None:
        p.close()


def _start(game: str, players: int, seed: int, plies: int):
    """A position ``plies`` random legal actions into a game, and those actions in notation."""
    g = load_game(game, None, players)
    s = g.new_initial_state()
    rng = random.Random(seed)
    moves = []
    for _ in range(plies):
        a = rng.choice(s.legal_actions())
        moves.append(s.action_to_string(a))
        s.apply_action(a)
    assert not s.is_terminal()
    return s, moves


def _check_search(lines: list[str], state) -> str:
    """Every info line's PV is legal notation from ``state``; returns the legal bestmove."""
    infos = [ln for ln in lines if ln.startswith("info") and " pv " in ln]
    assert infos, lines
    for ln in infos:
        s = state.clone()
        pv = ln.split(" pv ", 1)[1].split()
        assert pv
        for tok in pv:
            s.play(tok)  # raises if the PV is not legal notation in turn
    best = lines[-1].split()
    assert best[0] == "bestmove" and len(best) == 2, lines[-1]
    assert state.string_to_action(best[1]) in state.legal_actions()
    # the last info line's PV starts with the move played
    assert infos[-1].split(" pv ", 1)[1].split()[0] == best[1]
    return best[1]


def test_handshake_and_options(pipe):
    lines = pipe.ask("rgi", "rgiok")
    assert lines[0].startswith("id name ringgames ")
    assert lines[1].startswith("id author ")
    options = {ln.split()[2]: ln for ln in lines if ln.startswith("option name ")}
    assert set(options) == {"game", "variant", "players", "level", "seed", "threads", "hash"}
    assert "var yinsh" in options["game"] and "var gyges" in options["game"] and "var rings" in options["game"]
    assert pipe.ask("isready", "readyok") == ["readyok"]
    # bad values: an error each, nothing changes, the engine lives on
    for bad, word in [("setoption name game value chess", "unknown game"),
                      ("setoption name players value 7", "players"),
                      ("setoption name level value 9", "bad level"),
                      ("setoption name level value engine:foo", "external engine"),
                      ("setoption name threads value 0", f"threads must be 1–{MAX_ENGINE_THREADS}"),
                      ("setoption name threads value 65", f"threads must be 1–{MAX_ENGINE_THREADS}"),
                      ("setoption name threads value two", f"threads must be 1–{MAX_ENGINE_THREADS}"),
                      ("setoption name hash value -5", "hash"),
                      ("setoption name colour value red", "unknown option"),
                      ("setoption name", "usage")]:
        ans = pipe.ask(bad, "info string error:")
        assert ans == [ans[-1]] and word in ans[-1], (bad, ans)
    pipe.send("setoption name game value rings")
    pipe.send("setoption name players value 4")
    lines = pipe.ask("rgi", "rgiok")
    assert "option name game type combo default rings" in " ".join(lines)
    assert any(ln.startswith("option name players type spin default 4 min 2 max 6") for ln in lines)
    assert f"option name threads type spin default 1 min 1 max {MAX_ENGINE_THREADS}" in lines
    pipe.send("setoption name threads value 2")
    assert f"option name threads type spin default 2 min 1 max {MAX_ENGINE_THREADS}" in pipe.ask("rgi", "rgiok")
    assert pipe.ask("isready", "readyok") == ["readyok"]
    assert pipe.close() == 0


def test_go_depth_with_mcts_ends_on_the_level_s_own_budget(pipe):
    # MCTS has no depth: a "go depth" alone used to search until stop, leaving the controller waiting
    for line in ("setoption name game value rings", "setoption name players value 4",
                 "setoption name level value mcts:iterations=200,rollout=0", "position startpos"):
        pipe.send(line)
    t0 = time.perf_counter()
    lines = pipe.ask("go depth 2", "bestmove", timeout=60)
    assert any("depth ignored, the level's own budget used" in ln for ln in lines), lines
    assert lines[-1].startswith("bestmove ") and time.perf_counter() - t0 < 30
    assert pipe.close() == 0


def test_the_threads_option_reaches_the_compiled_search():
    from ringgames.engine import Engine

    out: list[str] = []
    eng = Engine(write=out.append)
    eng.handle("setoption name level value search:depth=2,threads=2")
    assert eng.agent().threads == 2  # the spec's own, while the option is not set
    for line in ("setoption name level value search:depth=2", "setoption name threads value 2"):
        eng.handle(line)
    assert eng.agent().threads == 2
    eng.handle("setoption name level value mcts:iterations=10")
    assert not hasattr(eng.agent(), "threads")  # MCTS searches on one thread whatever the option says
    assert not [ln for ln in out if "error" in ln], out


def test_isready_compiles_each_game_once_before_its_first_go(monkeypatch):
    """On a fresh install the kernels compile for tens of seconds: in ``isready`` (which a controller waits for with
    its start-up allowance), not in the first ``go``, where ``stop`` and the move's time could not cut it short."""
    import ringgames.warmup
    from ringgames.engine import Engine

    calls: list[list[str]] = []
    levels: list[str] = []
    monkeypatch.setattr(ringgames.warmup, "warm_up", lambda games: calls.append(list(games)) or {})
    monkeypatch.setattr(Engine, "_warm_level", lambda self: levels.append(f"{self.game.name} {self._level}"))
    out: list[str] = []
    eng = Engine(write=out.append, seed=5)
    for line in ("isready", "isready", "setoption name game value gyges", "isready", "setoption name game value yinsh",
                 "isready", "setoption name level value baseline:5,scale=0.1", "isready", "isready", "rgi"):
        eng.handle(line)
    assert calls == [["yinsh"], ["gyges"]] and out.count("readyok") == 6
    # and what a level alone compiles (a level set after the first isready too), once per game and level
    assert levels == ["yinsh 3", "gyges 3", "yinsh baseline:5,scale=0.1"]
    assert "option name seed type string default 5" in out  # the command line's --seed is the option's default


@pytest.mark.parametrize("game,players,level,searches", [
    ("gyges", 2, "baseline:5,scale=0.1", True), ("gyges", 2, "5", True), ("gyges", 2, "3", True), ("yinsh", 2, "1", False),
    ("yinsh", 2, "search:time=1,min=7", True), ("rings", 4, "mcts:time=1,rollout=0", True), ("rings", 6, "5", True)])
def test_warming_a_level_searches_a_throwaway_agent(game, players, level, searches):
    from ringgames.engine import Engine

    out: list[str] = []
    eng = Engine(write=out.append, game=game, players=players, seed=3)
    eng.handle(f"setoption name level value {level}")
    mine = eng.agent()
    eng.handle("isready")
    assert out[-1] == "readyok" and eng.agent() is mine  # the game's own agent (its tables, its random numbers) untouched
    assert not [ln for ln in out if "error" in ln], out
    # a real search (a position where no win is played at once, as the first Gygès positions of the playout were),
    # short whatever the level's min= says (min=7 alone would take YINSH tens of seconds)
    t0 = time.perf_counter()
    searched = eng._warm_level()
    assert (searched > 0) == searches, searched
    assert time.perf_counter() - t0 < 5


def test_numbers_are_plain_ascii_digits():
    from ringgames.engine import Engine, whole

    out: list[str] = []
    eng = Engine(write=out.append)
    for line in ("go depth \u0661", "go movetime 1_000", "go nodes +5", "setoption name players value 0x2",
                 "setoption name hash value 1_0", "setoption name threads value \u0662"):
        out.clear()
        eng.handle(line)
        assert len(out) == 1 and out[0].startswith("info string error:"), (line, out)
    out.clear()
    eng.handle("setoption name seed value -3")
    assert out == [] and whole("-3", signed=True) == -3
    with pytest.raises(ValueError, match="not a whole number"):
        whole("-3")


@pytest.mark.parametrize("game,players,level,go,plies", [
    ("yinsh", 2, "alphabeta:depth=3", "go depth 2", 14),
    ("gyges", 2, "alphabeta:depth=3", "go depth 2", 4),
    ("rings", 2, "alphabeta:depth=3", "go depth 2", 24),
    ("rings", 3, "mcts:rollout=0", "go nodes 300", 30),
    ("rings", 4, "uct", "go nodes 3000", 40),
])
def test_search_each_game(pipe, game, players, level, go, plies):
    state, moves = _start(game, players, seed=7, plies=plies)
    pipe.send(f"setoption name game value {game}")
    pipe.send(f"setoption name players value {players}")
    pipe.send(f"setoption name level value {level}")
    pipe.send("setoption name seed value 3")
    pipe.send("newgame")
    pipe.send("position startpos moves " + " ".join(moves))
    lines = pipe.ask(go, "bestmove")
    assert not [ln for ln in lines if "error" in ln], lines
    best = _check_search(lines, state)
    if go.startswith("go depth"):
        depths = [int(ln.split()[2]) for ln in lines if ln.startswith("info depth")]
        assert max(depths) == 2  # the depth limit holds
    # the same search again gives the same move (same seed, fresh game)
    pipe.send("newgame")
    pipe.send("position startpos moves " + " ".join(moves))
    assert pipe.ask(go, "bestmove")[-1] == f"bestmove {best}"


def test_position_fen_finds_the_win(pipe):
    state = load_game("gyges").state_from_position(GYGES_WIN)
    win = state.action_to_string(winning_action(state))
    pipe.send("setoption name game value gyges")
    pipe.send("setoption name level value alphabeta:depth=2")
    pipe.send(f"position fen {GYGES_WIN}")
    lines = pipe.ask("go depth 1", "bestmove")
    assert lines[-1] == f"bestmove {win}"
    assert any("score win" in ln for ln in lines)


def test_gyges_level_5_answers_the_setup_from_its_book(pipe):
    import json

    from ringgames.ai.book import BOOK_FILES

    moves = json.loads(BOOK_FILES["gyges"].read_text())["moves"]
    start = load_game("gyges").new_initial_state()
    south = moves[start.position()]["action"]
    pipe.send("setoption name game value gyges")
    pipe.send("setoption name level value 5")
    pipe.send("position startpos")
    lines = pipe.ask("go movetime 200", "bestmove")
    assert lines[-1] == f"bestmove {south}" and "info string book move" in lines
    assert "info depth 6 nodes 0 " in lines[-2] and lines[-2].endswith(f"pv {south}")
    after = start.clone()
    after.apply_action(after.string_to_action("321123"))
    pipe.send("position startpos moves 321123")
    assert pipe.ask("go movetime 200", "bestmove")[-1] == f"bestmove {moves[after.position()]['action']}"
    pipe.send("setoption name level value search:depth=1")  # no book=1: a search
    pipe.send("position startpos")
    assert "info string book move" not in pipe.ask("go depth 1", "bestmove")


def test_stop_during_infinite(pipe):
    state, moves = _start("yinsh", 2, seed=3, plies=16)
    pipe.send("setoption name level value alphabeta:time=1")
    pipe.send("position startpos moves " + " ".join(moves))
    pipe.send("go infinite")
    time.sleep(1.0)
    # answered while searching
    assert pipe.ask("isready", "readyok")[-1] == "readyok"
    ans = pipe.ask("position startpos", "info string error:")[-1]
    assert "while searching" in ans
    t = time.monotonic()
    lines = pipe.ask("stop", "bestmove", timeout=10)
    assert time.monotonic() - t < 5.0
    _check_search([ln for ln in lines if not ln.startswith("info string")], state)
    # idle again: a new search works
    assert pipe.ask("go depth 1", "bestmove")[-1].startswith("bestmove ")


def test_errors_never_crash(pipe):
    state, moves = _start("yinsh", 2, seed=5, plies=12)
    pipe.send("setoption name level value alphabeta:depth=1")
    pipe.send("position startpos moves " + " ".join(moves))
    for bad, word in [("frobnicate now", "unknown command 'frobnicate'"),
                      ("position startpos moves " + " ".join(moves) + " z99", "position"),
                      ("position startpos moves e3 e3", "not legal"),
                      ("position fen nonsense", "position"),
                      ("position sideways", "startpos or fen"),
                      ("go movetime soon", "positive integer"),
                      ("go depth -1", "positive integer"),
                      ("go ponder", "unknown go limit"),
                      ("go nodes 9223372036854775808", "go nodes is at most 1,000,000,000,000,000"),
                      ("go depth 65", "go depth is at most 64"),
                      ("go movetime 1 movetime 100000", "go movetime given twice"),
                      ("setoption name level value level:3,scale=-1", "scale must be a number above 0"),
                      ("setoption name level value level:3,scale=nan", "scale must be a number above 0"),
                      ("setoption name level value alphabeta:eval=bogus", "'bogus'"),
                      ("setoption name level value search:time=1,time=2", "option 'time' given twice"),
                      ("setoption name level value search:=", "an option without a name"),
                      ("setoption name level value search:frob=1", "agent 'search' has no option 'frob'"),
                      ("setoption name hash value 100000000", "hash must be 0–"),
                      ("x" * 5000, "unknown command")]:
        ans = pipe.ask(bad, "info string error:")[-1]
        assert word in ans, (bad, ans)
        assert len(ans) <= 250
    # the bad positions changed nothing: the search is from the last good one
    lines = pipe.ask("go depth 1", "bestmove")
    assert state.string_to_action(lines[-1].split()[1]) in state.legal_actions()
    # a finished game: an error, not a crash
    g = load_game("gyges")
    over = g.state_from_position(GYGES_WIN)
    over.apply_action(winning_action(over))
    assert over.is_terminal()
    pipe.send("setoption name game value gyges")
    pipe.send(f"position fen {GYGES_WIN} moves {g.state_from_position(GYGES_WIN).action_to_string(winning_action(g.state_from_position(GYGES_WIN)))}")
    assert "game is over" in pipe.ask("go depth 1", "info string error:")[-1]
    assert pipe.ask("isready", "readyok")[-1] == "readyok"
    assert pipe.close() == 0


def test_a_long_line_is_refused_in_bounded_memory_and_the_limit_is_the_command_s_length():
    """``run`` reads at most about MAX_LINE characters of a line at a time: a 5,000,000-character line that never
    ends is dropped in chunks and refused with its length; a line of exactly MAX_LINE characters is a command."""
    from ringgames.engine import MAX_LINE, run

    class Stream:  # serves a long line without a newline, then commands; records how much each read asked for
        def __init__(self, parts):
            self.parts, self.asked = list(parts), []

        def readline(self, size=-1):
            self.asked.append(size)
            if not self.parts:
                return ""
            head = self.parts[0]
            cut = len(head) if size < 0 else size
            nl = head.find("\n")
            if 0 <= nl < cut:
                cut = nl + 1
            self.parts[0] = head[cut:]
            if not self.parts[0]:
                self.parts.pop(0)
            return head[:cut]

    stream = Stream(["y" * MAX_LINE + "\n", "x" * 5_000_000, "\nisready\n"])
    out = io.StringIO()
    assert run(stream, out) == 0
    lines = out.getvalue().splitlines()
    assert "unknown command" in lines[0] and "too long" not in lines[0]  # exactly MAX_LINE: read as a command
    assert lines[1] == f"info string error: line too long (5000000 characters; at most {MAX_LINE})"
    assert lines[2] == "readyok"
    assert all(0 < n <= MAX_LINE + 2 for n in stream.asked)  # never the whole line at once


# -- external engines as players ----------------------------------------------------------

def test_engine_spec_parsing():
    assert parse_spec("engine:ringgames engine --level 2") == ("engine", {"command": "ringgames engine --level 2"})
    assert parse_spec("engine:python -m ringgames engine;movetime=500,level=2") == (
        "engine", {"command": "python -m ringgames engine", "movetime": 500, "level": 2})
    spec = with_seed("engine:ringgames engine --level alphabeta:depth=2,safe=1", 7)
    assert parse_spec(spec) == ("engine", {"command": "ringgames engine --level alphabeta:depth=2,safe=1", "seed": 7})
    assert parse_spec(with_seed("engine:x;depth=2", 7))[1] == {"command": "x", "depth": 2, "seed": 7}
    with pytest.raises(ValueError, match="not allowed"):
        make_agent("engine:ringgames engine")  # the server's path: never starts programs
    with pytest.raises(ValueError, match="give a command"):
        make_agent("engine:", external=True)
    with pytest.raises(ValueError, match="positive integer"):
        make_agent("engine:x;movetime=-3", external=True)


@pytest.mark.parametrize("game,players", [("yinsh", 2), ("gyges", 2), ("rings", 2), ("rings", 3), ("rings", 4)])
def test_match_through_the_protocol_equals_direct_match(game, players):
    a, b = "alphabeta:depth=1", "greedy"
    ea = f"engine:{ENGINE_CMD} --level {a};depth=1"
    eb = f"engine:{ENGINE_CMD} --level {b};depth=1"
    seatings = [[(a, b)[k % 2] for k in range(players)], [(b, a)[k % 2] for k in range(players)]]
    direct = [play_game(game, s, i, seed=5) for i, s in enumerate(seatings)]
    via = [play_game(game, [ea if x == a else eb for x in s], i, seed=5) for i, s in enumerate(seatings)]
    for d, v in zip(direct, via, strict=True):
        assert v.error is None
        assert v.history == d.history and len(d.history) > 10
        assert (v.winners, v.reason, v.returns) == (d.winners, d.reason, d.returns)
    if players == 2:
        assert summarise([ea, eb], via)["score"] == summarise([a, b], direct)["score"]


FAKE = textwrap.dedent("""
    import os, sys, time
    mode = sys.argv[1]
    open(sys.argv[2], "w").write(str(os.getpid()))
    for line in sys.stdin:
        cmd = line.split()
        if not cmd:
            continue
        if cmd[0] == "rgi":
            print("id name fake"); print("option name game type string default yinsh")
            while mode == "chatty":  # a handshake that never ends
                print("option name x type string default " + "y" * 100)
            print("rgiok")
        elif cmd[0] == "isready":
            print("readyok")
        elif cmd[0] == "go":
            if mode == "illegal":
                print("bestmove a1")
            elif mode == "crash":
                sys.exit(3)
            elif mode == "hang":
                time.sleep(600)
            elif mode in ("garbage", "badmove"):  # bytes that are not UTF-8
                sys.stdout.flush()
                sys.stdout.buffer.write(b"\\xff\\xfe\\x80bestmove e5\\n" if mode == "garbage" else b"bestmove \\xff\\n")
            elif mode == "flood":  # an answer that never ends its line: 300 MB without a newline
                for _ in range(300):
                    sys.stdout.write("x" * 2**20)
                sys.stdout.flush()
                time.sleep(600)
        elif cmd[0] == "quit" and mode != "stubborn":
            break
        sys.stdout.flush()
    if mode == "stubborn":
        time.sleep(600)
""")


def _gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


@pytest.mark.parametrize("mode,word", [("illegal", "illegal move 'a1'"), ("crash", "exited"),
                                       ("hang", "did not answer go in time")])
def test_bad_engine_ends_the_game_as_an_error(tmp_path, mode, word):
    script = tmp_path / "fake.py"
    script.write_text(FAKE)
    pidfile = tmp_path / "pid"
    spec = f"engine:{sys.executable} {script} {mode} {pidfile};timeout=2"
    results = [play_game("yinsh", s, i, seed=1) for i, s in enumerate([[spec, "greedy"], ["greedy", spec]])]
    for r in results:
        assert r.reason == "error" and word in r.error, r.error
        assert r.score_for(spec) is None and r.score_for("greedy") is None
    assert results[0].actions == 0 and results[1].actions == 1  # greedy moved first in game 2
    summary = summarise([spec, "greedy"], results)
    assert (summary["wins"], summary["draws"], summary["losses"], summary["score"]) == (0, 0, 0, None)
    assert len(summary["errors"]) == 2
    assert _gone(int(pidfile.read_text()))  # no orphan


def test_an_engine_started_by_a_wrapper_script_goes_with_its_children(tmp_path):
    """``sh run.sh`` whose engine is a child of the shell (no ``exec``): at the timeout both end, and the game ends
    as an error at once, not when the child would have (it holds the pipe: reading it to the end would wait)."""
    script = tmp_path / "fake.py"
    script.write_text(FAKE)
    pidfile = tmp_path / "pid"
    wrapper = tmp_path / "run.sh"
    wrapper.write_text(f"#!/bin/sh\n{sys.executable} {script} hang {pidfile}\necho done\n")
    t = time.monotonic()
    r = play_game("yinsh", [f"engine:sh {wrapper};timeout=2", "greedy"], 0, seed=1)
    assert r.reason == "error" and "did not answer go in time" in r.error, r.error
    assert time.monotonic() - t < 60  # the child sleeps 600 s
    deadline = time.monotonic() + 10
    while not _gone(int(pidfile.read_text())) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert _gone(int(pidfile.read_text()))  # the wrapper's child too: no orphan


def test_a_signal_to_the_controllers_process_group_reaches_the_engine(tmp_path):
    """``timeout 6 ringgames match …`` signals its process group: the engine is in it, so it does not outlive the
    match (it would, in a process group of its own)."""
    script = tmp_path / "fake.py"
    script.write_text(FAKE)
    pidfile = tmp_path / "pid"
    cmd = ["timeout", "6"] + ENGINE[:-1] + ["match", "yinsh", f"engine:{sys.executable} {script} hang {pidfile};"
                                            "timeout=100", "random", "--games", "1"]
    assert ENGINE[-1] == "engine"
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    assert r.returncode == 124, r.stderr[-2000:]  # stopped by timeout, in the game
    deadline = time.monotonic() + 10
    while not _gone(int(pidfile.read_text())) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert _gone(int(pidfile.read_text()))


@pytest.mark.parametrize("mode,word", [("badmove", "sent an illegal move '\ufffd'"),
                                       ("garbage", "did not answer go in time (the last line it sent that is not the "
                                                   "protocol's: '\ufffd\ufffd\ufffdbestmove e5')"),
                                       ("chatty", "sent more than 10,000 lines before rgiok")])
def test_undecodable_or_endless_replies_are_errors_that_say_so(tmp_path, mode, word):
    import resource

    script = tmp_path / "fake.py"
    script.write_text(FAKE)
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    r = play_game("yinsh", [f"engine:{sys.executable} {script} {mode} {tmp_path / 'pid'};timeout=4", "greedy"], 0,
                  seed=1)
    assert r.reason == "error" and word in r.error, r.error
    assert resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before < 100 * 1024  # KiB
    assert _gone(int((tmp_path / "pid").read_text()))


def test_engine_spec_limits_are_bounded():
    for spec, word in [("engine:x;timeout=inf", "timeout must be a number of seconds above 0 and at most 86,400"),
                       ("engine:x;timeout=1e300", "at most 86,400, not '1e+300'"),
                       ("engine:x;timeout=nan", "not 'nan'"), ("engine:x;timeout=0", "above 0"),
                       ("engine:x;timeout=soon", "not 'soon'"),
                       ("engine:x;movetime=999999999999", "movetime is at most 86,400,000 (ms: a day)"),
                       ("engine:x;foo=" + "a" * 1000, "engine option 'foo': at most 1,000 characters with its value, "
                                                        "not 1,003")]:
        with pytest.raises(ValueError, match=re.escape(word)):
            make_agent(spec, external=True)
    assert make_agent("engine:x;timeout=86400", external=True).timeout == 86400.0


def test_an_engine_that_never_ends_a_line_costs_bounded_memory(tmp_path):
    """300 MB without a newline: read and dropped in chunks (``textbounds.bounded_lines``), never held whole."""
    import resource

    script = tmp_path / "fake.py"
    script.write_text(FAKE)
    spec = f"engine:{sys.executable} {script} flood {tmp_path / 'pid'};timeout=4"
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # KiB: the process's peak so far
    r = play_game("yinsh", [spec, "greedy"], 0, seed=1)
    assert r.reason == "error" and "did not answer go in time" in r.error, r.error
    grown = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before
    assert grown < 100 * 1024, f"the peak grew by {grown} KiB"  # reading the line whole: 300 MB or more


def test_engine_that_ignores_quit_is_killed(tmp_path):
    script = tmp_path / "fake.py"
    script.write_text(FAKE)
    pidfile = tmp_path / "pid"
    agent = make_agent(f"engine:{sys.executable} {script} stubborn {pidfile}", external=True)
    agent.new_game(load_game("yinsh"))
    pid = int(pidfile.read_text())
    assert not _gone(pid)
    t = time.monotonic()
    agent.close()
    assert _gone(pid) and time.monotonic() - t < 15


def test_real_engine_process_ends_after_a_game():
    agent = make_agent(f"engine:{ENGINE_CMD} --level greedy;depth=1", external=True)
    s = load_game("yinsh").new_initial_state()
    a = agent.choose(s)
    assert a in s.legal_actions()
    pid = agent.proc.pid
    agent.close()
    assert agent.proc is None and _gone(pid)


# -- baselines ------------------------------------------------------------------------------

def test_baselines_are_the_levels_before_issue_35():
    frozen = {  # the levels as they were when issue 35 was filed: baseline:N must never change
        "yinsh": ["greedy:eval=0", "greedy", "alphabeta:time=0.5", "alphabeta:time=2", "alphabeta:time=5"],
        "gyges": ["greedy:eval=0", "greedy", "alphabeta:depth=2,time=1", "alphabeta:time=1.6,min=2",
                  "alphabeta:time=5,min=2"],
        "rings": ["greedy:eval=0", "greedy", "alphabeta:time=0.5,min=2", "alphabeta:time=2,min=2",
                  "alphabeta:time=5,min=2"],
    }
    for game, specs in frozen.items():
        for n in range(1, 6):
            assert spec_for(game, n, baseline=True) == BASELINES[game][n] == specs[n - 1]
    assert spec_for("yinsh", 5, 0.5, baseline=True) == "alphabeta:time=2.5"
    assert spec_for("yinsh", 5, 0.5) == "search:time=2.5"  # today's level 5 has moved on
    assert spec_for("rings", 5, players=3, baseline=True) == "mcts:time=5,rollout=0"
    b = make_agent("baseline:5,scale=0.1,seed=2")
    assert b.name == "baseline:5"
    inner = b.agent_for("yinsh")
    assert inner.time_limit == pytest.approx(0.5) and inner.name == "alphabeta"
    with pytest.raises(ValueError):
        make_agent("baseline:6")
    assert BASELINES["yinsh"] is not LEVELS["yinsh"]


# -- the command line: match and strength with an external engine -----------------------------

def test_match_and_strength_commands_take_an_engine(tmp_path):
    from click.testing import CliRunner

    from ringgames.ai.strength import read_ledger
    from ringgames.cli import main

    spec = f"engine:{ENGINE_CMD} --level greedy;depth=1"
    r = CliRunner().invoke(main, ["match", "yinsh", spec, "greedy", "--games", "2", "--seed", "4", "--json"])
    assert r.exit_code == 0, r.output
    res = json.loads(r.output.strip().splitlines()[-1])
    assert res["games"] == 2 and res["errors"] == [] and res["wins"] + res["draws"] + res["losses"] == 2

    fake = tmp_path / "fake.py"
    fake.write_text(FAKE)
    bad = f"engine:{sys.executable} {fake} illegal {tmp_path / 'pid'};timeout=5"
    r = CliRunner().invoke(main, ["match", "yinsh", bad, "greedy", "--games", "2", "--seed", "4"])
    assert r.exit_code == 1 and "no game finished without an error: no score" in r.output, r.output
    assert r.output.count("error (not counted): game ") == 2 and "illegal move" in r.output
    ledger, out = tmp_path / "r.jsonl", tmp_path / "r.md"
    args = ["strength", "--game", "yinsh", "--levels", "1", "--against", bad, "--games", "2",
            "--ledger", str(ledger), "--out", str(out)]
    r = CliRunner().invoke(main, args)
    assert r.exit_code == 0, r.output
    recs = read_ledger(ledger)
    assert [(x["b"], x["reason"], x["score"]) for x in recs] == [(bad, "error", None)] * 2
    assert all("illegal move" in x["error"] for x in recs)
    report = out.read_text()
    assert "**Games that ended as an error** (not counted; the next run plays them again):" in report
    from ringgames.textbounds import excerpt

    assert f"- yinsh, level 1 against {excerpt(bad, 100)}: 2 game(s); the last error: " in report, report[-800:]
    # errors are played again on a rerun (not taken as done), and never scored
    CliRunner().invoke(main, args)
    assert len(read_ledger(ledger)) == 4
    table = out.read_text().split("Levels now:")[1].split("\n| game | level")[1].split("**Games that ended")[0]
    assert "engine:" not in table  # no row: no game of the pairing counted


def test_a_bad_engine_option_is_refused_once_before_any_game(tmp_path):
    from click.testing import CliRunner

    from ringgames.cli import main

    for args, word in (
            (["match", "yinsh", f"engine:{ENGINE_CMD};nosuch=1,movetime=50", "random", "--games", "50"],
             "has no option 'nosuch'"),
            (["match", "yinsh", f"engine:{ENGINE_CMD};level=9,movetime=50", "random", "--games", "50"],
             "error: bad level '9': levels are 1–5, not 9"),
            (["strength", "--game", "yinsh", "--levels", "1", "--against", f"engine:{ENGINE_CMD};nosuch=1",
              "--games", "50", "--ledger", str(tmp_path / "r.jsonl"), "--out", str(tmp_path / "r.md")],
             "has no option 'nosuch'")):
        t = time.monotonic()
        r = CliRunner().invoke(main, args)
        assert r.exit_code == 2, r.output
        assert r.output.count(word) == 1 and "game 1" not in r.output, r.output
        assert time.monotonic() - t < 60
    assert not (tmp_path / "r.jsonl").exists()


def test_timeout_also_bounds_the_start_up_handshake(tmp_path):
    mute = tmp_path / "mute.py"
    mute.write_text("import sys, time\nsys.stdin.readline()\ntime.sleep(1000)\n")  # reads `rgi`, never answers
    t = time.monotonic()
    r = play_game("yinsh", [f"engine:{sys.executable} {mute};timeout=2", "greedy"], 0, seed=1)
    assert r.reason == "error" and "rgiok" in r.error, r.error
    assert time.monotonic() - t < 30  # the 2 s given, not the 120 s start-up default


def test_error_lines_read_well_and_stay_bounded(pipe):
    assert pipe.ask("setoption name players value 3", "info string error")[-1] == (
        "info string error: YINSH is played by 2 players, not 3")
    assert pipe.ask("position fen xx", "info string error")[-1].startswith(
        "info string error: position: expected 6 fields")  # one "position:", not two
    for line in ("position startpos moves " + "q" * 10_000, "setoption name level value " + "q" * 10_000):
        err = pipe.ask(line, "info string error")[-1]
        assert len(err) <= len("info string error: ") + 200 and err.count("q") < 200


def test_hash_and_variant_options_reach_the_search_and_the_game():
    from ringgames.engine import Engine

    out: list[str] = []
    eng = Engine(write=out.append)
    eng.handle("setoption name level value 5")
    own = eng.agent().tt_size  # the level's own table while hash is 0
    eng.handle("setoption name hash value 16")
    assert eng.agent().tt_size == 16 * 1024 * 1024 // 256 != own  # 256 bytes an entry
    eng.handle("setoption name hash value 0")
    assert eng.agent().tt_size == own
    eng.handle("setoption name variant value blitz")
    eng.handle("position startpos")
    assert eng.game.variant == "blitz" and eng.state.game.variant == "blitz"
    eng.handle("rgi")
    assert "option name variant type string default blitz" in out
    eng.handle("setoption name game value gyges")  # another game: its default variant
    assert eng.game.variant == "standard"
    eng.handle("setoption name variant value beginner")
    assert (eng.game.name, eng.game.variant) == ("gyges", "beginner")
    eng.handle("setoption name variant value nope")
    assert out[-1].startswith("info string error: unknown gyges variant 'nope'") and eng.game.variant == "beginner"
    assert not [ln for ln in out[:-1] if "error" in ln], out


def test_go_movetime_bounds_a_level_s_own_budget(pipe):
    # YINSH level 5 searches 5 s a decision on its own; movetime 300 must cut that short
    for line in ("setoption name level value 5", "isready"):
        pipe.send(line)
    pipe.until("readyok")
    pipe.send("position startpos moves e5 f6 d4 g7 c3 h8 f3 c6 g9 d2")
    t0 = time.perf_counter()
    lines = pipe.ask("go movetime 300", "bestmove", timeout=60)
    took = time.perf_counter() - t0
    assert lines[-1].startswith("bestmove ") and took < 3.0, (took, lines)
    times = [int(ln.split(" time ")[1].split()[0]) for ln in lines if ln.startswith("info") and " time " in ln]
    assert times and max(times) <= 1500, times
    assert pipe.close() == 0


def test_isready_answers_readyok_even_when_the_level_s_trial_search_fails(monkeypatch):
    from ringgames.engine import Engine

    def boom(self):
        raise RuntimeError("no such kernel")

    monkeypatch.setattr(Engine, "_warm_level", boom)
    out: list[str] = []
    eng = Engine(write=out.append)
    eng.handle("isready")
    assert out[-2:] == ["info string error: the level 3 failed a trial search: no such kernel", "readyok"]
    eng.handle("isready")  # tried once per level
    assert out[-1] == "readyok" and out.count("readyok") == 2 and len(out) == 3


def test_a_plain_go_keeps_the_level_s_cap_and_go_depth_replaces_it(pipe):
    # three-player RINGS after two placements: the paranoid depth 2 takes about 900,000 nodes (1 s); a cap of
    # 0.05 s ends it, as the site's three-player level 3 (cap=0.8) ends its first placements
    s = load_game("rings", None, 3).new_initial_state()
    moves = []
    for k in range(2):
        a = random.Random(k).choice(s.legal_actions())
        moves.append(s.action_to_string(a))
        s.apply_action(a)
    for line in ("setoption name game value rings", "setoption name players value 3",
                 "setoption name level value search:time=0.01,min=2,cap=0.05", "isready"):
        pipe.send(line)
    pipe.until("readyok")
    pipe.send("position startpos moves " + " ".join(moves))
    lines = pipe.ask("go", "bestmove", timeout=60)
    _check_search(lines, s)
    depths = [int(ln.split(" depth ")[1].split()[0]) for ln in lines if ln.startswith("info") and " depth " in ln]
    assert depths and max(depths) == 1, lines
    lines = pipe.ask("go depth 2", "bestmove", timeout=60)
    _check_search(lines, s)
    depths = [int(ln.split(" depth ")[1].split()[0]) for ln in lines if ln.startswith("info") and " depth " in ln]
    assert max(depths) == 2, lines
    assert pipe.close() == 0
