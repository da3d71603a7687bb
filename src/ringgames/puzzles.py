"""Puzzles: positions with a forced win or a decisive tactic, found by search in real and self-played games.

Every puzzle is found and checked through the game protocol only (``apply_action``/``undo_action``,
:func:`~ringgames.ai.tactics.winning_action`), with an exact small search:

==========  =======  ========================================================================================
theme       game     the task (what the player's first decision must achieve)
==========  =======  ========================================================================================
``row``     YINSH    complete a row of your colour this turn (then remove it and a ring: a ring scored)
``safe``    YINSH    no row of yours this turn: the move that does not hand the opponent a row next turn
``goal1``   Gygès    reach the opponent's goal now
``goal2``   Gygès    reach the goal in two of your moves against any defence (the first move is unique)
``chain``   RINGS    the placement whose conversion chain converts the most circles (≥ 2, the best unique)
==========  =======  ========================================================================================

Sources: the 878 boardspace YINSH games (``records.load_file``; each position where the player completed a row)
and self-played games of our levels (every position). A position is kept when few first decisions solve it
(``answers``: 1 for ``goal2`` and ``chain``, at most :data:`MAX_ANSWERS` otherwise). The initial rating grows with
the number of legal first decisions per answer and with the depth (:func:`initial_rating`); the server then moves
it with every rated attempt (OpenSkill, ``server/puzzles.py``). :func:`verify` re-checks a puzzle from scratch;
:func:`judge` checks a player's attempt. No I/O here except :func:`load`/:func:`save` and the build's reading of
record files.
"""

from __future__ import annotations

import hashlib
import json
import math
import random
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from . import load_game
from .ai.tactics import is_win_for, winning_action
from .protocol import IllegalActionError, NotationError, RingGamesError, State

__all__ = ["Puzzle", "Judgement", "THEMES", "SHIPPED", "load", "save", "verify", "judge", "answers", "initial_rating",
           "build", "yinsh_puzzles_of_record", "PuzzleError"]

#: the shipped set
SHIPPED = Path(__file__).parent / "data" / "puzzles.json"
THEMES = {"row": "yinsh", "safe": "yinsh", "goal1": "gyges", "goal2": "gyges", "chain": "rings"}
#: a ``row`` or ``goal1`` position is kept when at most this many first decisions solve it
MAX_ANSWERS = 2
#: a ``chain`` must convert at least this many circles
MIN_CHAIN = 2
#: the most conversions followed in one chain (a bound on the search; real chains are far shorter)
MAX_CHAIN = 40


class PuzzleError(RingGamesError, ValueError):
    """An attempt that cannot be judged (a bad move, too many moves): the message says why."""


@dataclass
class Puzzle:
    id: str
    game: str
    variant: str
    players: int
    position: str
    to_move: int
    #: the solution as notation: the player's decisions and, for ``goal2``, the defence in between
    solution: list[str]
    theme: str
    source: str
    rating: float
    #: legal first decisions, and how many of them solve the puzzle
    legal: int = 0
    answers: int = 1
    extra: dict[str, Any] = field(default_factory=dict)

    def state(self) -> State:
        return load_game(self.game, self.variant, self.players).state_from_position(self.position)


# -- what solves a puzzle -------------------------------------------------------------------------------------------

def _turn_continues(state: State, me: int) -> bool:
    return not state.is_terminal() and state.current_player() == me


def _row_made(state: State, action: int) -> bool:
    """YINSH: ``action`` (a ring move) completes a row of the mover's colour: the mover must then remove it (or won)."""
    me = state.current_player()
    state.apply_action(action)
    try:
        return is_win_for(state, me) or (_turn_continues(state, me) and
                                         any(state.action_to_string(b).startswith("x") and "-" in state.action_to_string(b)
                                             for b in state.legal_actions()))
    finally:
        state.undo_action()


def _hands_row(state: State, action: int) -> bool:
    """YINSH: after the ring move ``action`` (which makes no row of the mover's) the opponent has a row to remove at
    once (the move made it) or can complete one with their next move."""
    me = state.current_player()
    state.apply_action(action)
    try:
        if state.is_terminal() or state.current_player() == me:
            return False
        legal = state.legal_actions()
        if any(state.action_to_string(b).startswith("x") for b in legal):
            return True
        return any(_row_made(state, b) for b in legal)
    finally:
        state.undo_action()


def _wins_now(state: State, action: int) -> bool:
    me = state.current_player()
    state.apply_action(action)
    try:
        return is_win_for(state, me)
    finally:
        state.undo_action()


def _wins_in_two(state: State, action: int) -> bool:
    """Gygès: after ``action`` (not itself a win) every reply leaves the mover a win in one."""
    me = state.current_player()
    state.apply_action(action)
    try:
        if state.is_terminal():
            return False
        for r in state.legal_actions():
            state.apply_action(r)
            try:
                if state.is_terminal() or state.current_player() != me or winning_action(state) is None:
                    return False
            finally:
                state.undo_action()
        return True
    finally:
        state.undo_action()


def _conversions(state: State, me: int) -> list[int]:
    return [b for b in state.legal_actions() if state.action_to_string(b).startswith("x")]


def chain_length(state: State, action: int) -> int:
    """RINGS: how many circles the placement ``action`` lets the mover convert in a row, converting the first
    convertible circle (in the order of the legal actions) until none is left."""
    me = state.current_player()
    state.apply_action(action)
    n = 0
    try:
        while _turn_continues(state, me) and n < MAX_CHAIN:
            conv = _conversions(state, me)
            if not conv:
                break
            state.apply_action(conv[0])
            n += 1
        return n
    finally:
        for _ in range(n + 1):
            state.undo_action()


def _placements(state: State) -> list[int]:
    return [a for a in state.legal_actions() if state.action_to_string(a) not in ("pass", "end")
            and not state.action_to_string(a).startswith("x")]


def answers(state: State, theme: str, candidates: Sequence[int] | None = None) -> list[int]:
    """The first decisions that solve ``state`` under ``theme`` (``chain``: the placements with the longest chain,
    if it reaches :data:`MIN_CHAIN`)."""
    acts = list(state.legal_actions() if candidates is None else candidates)
    if theme == "row":
        return [a for a in acts if _row_made(state, a)]
    if theme == "safe":
        if any(_row_made(state, a) for a in acts):
            return []  # a row now: a ``row`` puzzle instead
        return [a for a in acts if not _hands_row(state, a)]
    if theme == "goal1":
        return [a for a in acts if _wins_now(state, a)]
    if theme == "goal2":
        if any(_wins_now(state, a) for a in acts):
            return []  # a win in one: not a two-move puzzle
        return [a for a in acts if _wins_in_two(state, a)]
    if theme == "chain":
        lengths = {a: chain_length(state, a) for a in _placements(state) if a in acts}
        best = max(lengths.values(), default=0)
        return [a for a, n in lengths.items() if n == best] if best >= MIN_CHAIN else []
    raise ValueError(f"unknown puzzle theme {theme!r}")


def initial_rating(legal: int, answers: int, depth: int) -> float:
    """The rating a puzzle starts with: 1000, plus 100 per doubling of legal first decisions per answer, plus 300 per
    move of the player beyond the first; clipped to 600–2400."""
    r = 1000 + 100 * math.log2(max(1.0, legal / max(1, answers))) + 300 * (depth - 1)
    return float(round(min(2400.0, max(600.0, r))))


def _make(state: State, theme: str, source: str, good: list[int], legal: int) -> Puzzle:
    """A puzzle of ``state`` (the player to move) with the first answer as the solution."""
    me = state.current_player()
    s = state.clone()
    a = good[0]
    first = s.action_to_string(a)
    s.apply_action(a)
    solution = [first]
    depth = 1
    if theme == "goal2":
        # the defence shown: the reply after which the player has the fewest winning moves (the first such)
        def wins_after(r: int) -> int:
            s.apply_action(r)
            try:
                return len([b for b in s.legal_actions() if _wins_now(s, b)])
            finally:
                s.undo_action()
        reply = min(s.legal_actions(), key=wins_after)
        solution.append(s.action_to_string(reply))
        s.apply_action(reply)
        w = winning_action(s)
        assert w is not None
        solution.append(s.action_to_string(w))
        depth = 2
    else:
        solution += [s.action_to_string(b) for b in _complete_turn_texts(s, me)]
    g = state.game
    key = f"{g.name}|{theme}|{state.position()}".encode()
    return Puzzle(id=f"{g.name[0]}{hashlib.blake2b(key, digest_size=5).hexdigest()}", game=g.name,
                  variant=g.params().get("variant", "standard"), players=state.num_players, position=state.position(),
                  to_move=me, solution=solution, theme=theme, source=source,
                  rating=initial_rating(legal, len(good), depth), legal=legal, answers=len(good))


def _complete_turn_texts(s: State, me: int) -> Iterator[int]:
    # the moves of the rest of the turn, applied to ``s`` (a scratch copy) one at a time
    while _turn_continues(s, me):
        legal = s.legal_actions()
        conv = [b for b in legal if s.action_to_string(b).startswith("x")]
        if s.game.name == "rings" and not conv:
            return
        a = conv[0] if conv else legal[0]
        yield a
        s.apply_action(a)


# -- checking --------------------------------------------------------------------------------------------------------

def verify(p: Puzzle) -> list[str]:
    """Re-check a puzzle from scratch; the problems found (empty: it holds). The solution must be legal and achieve
    the theme, and exactly ``answers`` first decisions may solve it (for ``goal2`` and ``chain``: only the
    solution's)."""
    problems: list[str] = []
    try:
        state = p.state()
    except (NotationError, ValueError) as exc:
        return [f"bad position: {exc}"]
    if state.is_terminal() or state.current_player() != p.to_move:
        return ["the position is over or another player is to move"]
    if THEMES.get(p.theme) != p.game:
        return [f"theme {p.theme!r} is not a {p.game} theme"]
    choices = first_choices(state)
    good = answers(state, p.theme, choices)
    me = state.current_player()
    s = state.clone()
    try:
        first = s.string_to_action(p.solution[0])
    except (NotationError, IllegalActionError) as exc:
        return [f"first move illegal: {exc}"]
    if first not in good:
        problems.append(f"{p.solution[0]} does not solve it")
    if len(good) != p.answers:
        problems.append(f"{len(good)} first moves solve it, not {p.answers}")
    if p.theme in ("goal2", "chain") and len(good) != 1:
        problems.append("the solution is not unique")
    if len(choices) != p.legal:
        problems.append(f"{len(choices)} legal first moves, not {p.legal}")
    try:
        for text in p.solution:
            s.play(text)
    except (NotationError, IllegalActionError) as exc:
        return problems + [f"solution illegal: {exc}"]
    if p.theme in ("goal1", "goal2") and not is_win_for(s, me):
        problems.append("the solution does not win")
    if p.theme == "goal2":
        # every defence loses: checked by answers(); the one shown is a legal reply (played above)
        pass
    if p.theme == "row":
        before, after = state.summary(), s.summary()
        key = f"rings_removed_{'white' if me == 0 else 'black'}"
        if not after.get(key, 0) == before.get(key, 0) + 1:
            problems.append("the solution does not score a ring")
    if p.theme == "chain" and len(p.solution) - 1 < MIN_CHAIN:
        problems.append("the chain is too short")
    return problems


@dataclass
class Judgement:
    """The answer to an attempt: ``done`` (decided) and ``correct``; while not done, the defence the server played
    (``reply``) and the position the player now faces."""

    done: bool
    correct: bool | None
    reply: list[str]
    position: str
    to_move: int | None
    legal: list[str]


def judge(p: Puzzle, moves: Sequence[str]) -> Judgement:
    """Judge the player's decisions ``moves`` (notation; for ``goal2`` without the defence, which the server plays
    from the solution). Raises :class:`PuzzleError` for an illegal or unreadable move or too many moves."""
    state = p.state()
    me = state.current_player()
    if not moves:
        raise PuzzleError("no move given")
    needed = 2 if p.theme == "goal2" else 1
    if len(moves) > needed:
        raise PuzzleError(f"this puzzle is decided after {needed} move{'s' if needed > 1 else ''}, {len(moves)} given")

    def read(s: State, text: str) -> int:
        try:
            return s.string_to_action(text)
        except (NotationError, IllegalActionError) as exc:
            raise PuzzleError(f"move {text[:40]!r}: {exc}") from None

    def done(ok: bool) -> Judgement:
        return Judgement(True, ok, [], state.position(), None if state.is_terminal() else state.current_player(), [])

    a = read(state, moves[0])
    if p.theme == "row":
        return done(_row_made(state, a))
    if p.theme == "safe":
        return done(not _row_made(state, a) and not _hands_row(state, a))
    if p.theme == "goal1":
        return done(_wins_now(state, a))
    if p.theme == "chain":
        best = len(p.solution) - 1
        return done(a in _placements(state) and chain_length(state, a) >= best)
    # goal2: the first move must be the solution's (unique), then the defence, then a win in one
    sol = state.clone()
    sol.play(p.solution[0])
    state.apply_action(a)
    if state.position() != sol.position():
        return done(False)
    state.play(p.solution[1])
    if len(moves) == 1:
        return Judgement(False, None, [p.solution[1]], state.position(), state.current_player(),
                         [state.action_to_string(b) for b in state.legal_actions()])
    b = read(state, moves[1])
    state.apply_action(b)
    return done(is_win_for(state, me))


def solution_positions(p: Puzzle) -> list[str]:
    """The position after each action of the solution (to play it on a board)."""
    s = p.state()
    out = []
    for text in p.solution:
        s.play(text)
        out.append(s.position())
    return out


# -- storage ---------------------------------------------------------------------------------------------------------

def load(path: str | Path = SHIPPED) -> list[Puzzle]:
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    return [Puzzle(**d) for d in data["puzzles"]]


def save(puzzles: Sequence[Puzzle], path: str | Path, meta: dict[str, Any] | None = None) -> None:
    body = {"meta": meta or {}, "puzzles": [asdict(p) for p in puzzles]}
    Path(path).write_text(json.dumps(body, indent=0, ensure_ascii=False, separators=(",", ":")) + "\n", encoding="utf-8")


# -- finding ---------------------------------------------------------------------------------------------------------

def first_choices(state: State) -> list[int]:
    """The first decisions a puzzle counts: one per distinct successor position where the game says which (Gygès:
    many step paths give the same move), RINGS: the placements; else the legal actions."""
    if state.game.name == "rings":
        return _placements(state)
    distinct = getattr(state, "distinct_actions", None)
    return distinct() if distinct is not None else state.legal_actions()


def yinsh_puzzles_of_record(state: State, source: str, safe: bool = True) -> Iterator[Puzzle]:
    """The puzzles of a replayed YINSH game (its final state): ``row`` at each position where the player to move
    made a row and at most :data:`MAX_ANSWERS` moves make one; with ``safe``, the first ``safe`` position of the
    game (no row to make, at most :data:`MAX_ANSWERS` moves that do not hand the opponent one)."""
    s = state.game.new_initial_state()  # the boardspace records start from the empty board
    for ply, a in enumerate(state.history):
        if a < 0 or s.is_terminal():
            break
        text = s.action_to_string(a)
        if "-" in text and not text.startswith("x"):
            legal = first_choices(s)
            if _row_made(s, a):
                good = answers(s, "row", legal)
                if 1 <= len(good) <= MAX_ANSWERS:
                    yield _make(s, "row", f"{source} ply {ply}", good, len(legal))
            elif safe:
                good = answers(s, "safe", legal)
                if 1 <= len(good) <= MAX_ANSWERS:
                    yield _make(s, "safe", f"{source} ply {ply}", good, len(legal))
                    safe = False
        s.apply_action(a)


#: the seats of the self-played games (short time: ``scale`` shrinks the levels' budgets)
SELFPLAY = {"gyges": ("level:3,scale=0.2", "level:3,scale=0.2"), "rings": ("level:2", "level:1")}


#: plies played at random at the start of a self-played game
RANDOM_OPENING = {"gyges": 4, "rings": 2}


def _selfplay_states(game: str, seed: int, players: int = 2, max_actions: int = 600) -> Iterator[tuple[int, State]]:
    """The states of one self-played game (seats: levels 2 and 1, seeded); ``(ply, state)`` before each action."""
    from .ai.agents import make_agent, with_seed

    g = load_game(game, None, players)
    s = g.new_initial_state()
    agents = [make_agent(with_seed(SELFPLAY[game][i % 2], seed * 101 + i)) for i in range(players)]
    rng = random.Random(seed)
    ply = 0
    while not s.is_terminal() and ply < max_actions:
        yield ply, s
        # the first plies at random (seeded): else the levels, which search, play the same game for every seed
        opening = ply < RANDOM_OPENING.get(game, 0)
        s.apply_action(rng.choice(s.legal_actions()) if opening else agents[s.current_player()].choose(s))
        ply += 1


def selfplay_puzzles(game: str, seed: int, players: int = 2) -> Iterator[Puzzle]:
    """The puzzles of one self-played game of ``game`` (Gygès: ``goal1`` and ``goal2``; RINGS: ``chain``)."""
    source = f"self-play {game} seed {seed} ({' vs '.join(SELFPLAY[game])})"
    for ply, s in _selfplay_states(game, seed, players):
        me = s.current_player()
        if game == "gyges":
            legal = first_choices(s)
            wins = answers(s, "goal1", legal)
            if 1 <= len(wins) <= MAX_ANSWERS:
                yield _make(s, "goal1", f"{source} ply {ply}", wins, len(legal))
            elif not wins and _threatens(s, me):
                two = answers(s, "goal2", first_choices(s))
                if len(two) == 1:
                    yield _make(s, "goal2", f"{source} ply {ply}", two, len(legal))
        elif game == "rings":
            if s.history and any(s.action_to_string(b).startswith("x") for b in s.legal_actions()):
                continue  # in the middle of a turn
            choices = first_choices(s)
            best = answers(s, "chain", choices)
            if len(best) == 1:
                yield _make(s, "chain", f"{source} ply {ply}", best, len(choices))


def _threatens(s: State, me: int) -> bool:
    """Gygès, cheap filter before the exact two-move search: some move of ``me`` leaves a winning move if the
    opponent could pass (a two-move win needs such a threat)."""
    for a in first_choices(s)[:400]:
        s.apply_action(a)
        try:
            if s.is_terminal():
                continue
            # the same position with ``me`` to move again: the position string with the side flipped
            pos = s.position()
            flipped = pos[:-1] + ("S" if pos.endswith("N") else "N")
            try:
                t = s.game.state_from_position(flipped)
            except NotationError:  # the setup: no threats yet
                return False
            if len([b for b in t.legal_actions() if _wins_now(t, b)]) >= 2:
                return True
        finally:
            s.undo_action()
    return False


def build(games: int = 878, selfplay: int = 20, per_game: int = 40, data_dir: str | Path | None = None,
          log: Callable[[str], None] = lambda _m: None) -> tuple[list[Puzzle], dict[str, Any]]:
    """Find puzzles: YINSH in the first ``games`` real games, Gygès and RINGS in up to ``selfplay`` self-played games
    each; at most ``per_game`` puzzles per game, YINSH: ``per_game`` ``row`` and a quarter as many ``safe`` (the first found in file / seed order, without duplicate positions).
    Returns the puzzles and the build's facts (counts, seconds)."""
    from . import records

    t0 = time.perf_counter()
    out: list[Puzzle] = []
    seen: set[str] = set()
    counts: dict[str, int] = {}

    themes: dict[str, int] = {}

    def keep(p: Puzzle) -> bool:
        if p.id in seen or counts.get(p.game, 0) >= per_game + (per_game // 4 if p.game == "yinsh" else 0):
            return False
        if p.game == "yinsh" and themes.get(p.theme, 0) >= (per_game if p.theme == "row" else per_game // 4):
            return False
        themes[p.theme] = themes.get(p.theme, 0) + 1
        seen.add(p.id)
        counts[p.game] = counts.get(p.game, 0) + 1
        out.append(p)
        return True

    root = Path(data_dir) if data_dir else Path(__file__).resolve().parents[3] / "shared" / "data" / "yinsh"
    files = sorted((root / "boardspace-2005").glob("*.sgf"))[:games]
    scanned = 0
    for f in files:
        if themes.get("row", 0) >= per_game and themes.get("safe", 0) >= per_game // 4:
            break
        scanned += 1
        for rec in records.load_file(f):
            try:
                state = rec.replay(stop_on_error=False)
            except RingGamesError:
                continue
            for p in yinsh_puzzles_of_record(state, f"{root.name}/{f.parent.name}/{f.name}"):
                keep(p)
    log(f"yinsh: {counts.get('yinsh', 0)} puzzles from {scanned} files, {time.perf_counter() - t0:.0f} s")
    for game in ("gyges", "rings"):
        t = time.perf_counter()
        for seed in range(selfplay):
            if counts.get(game, 0) >= per_game:
                break
            per_seed = 0
            for p in selfplay_puzzles(game, seed):
                if per_seed < per_game // 4 and keep(p):  # spread over several games
                    per_seed += 1
        log(f"{game}: {counts.get(game, 0)} puzzles, {time.perf_counter() - t:.0f} s")
    meta = {"counts": counts, "seconds": round(time.perf_counter() - t0, 1), "games": scanned, "selfplay": selfplay}
    return out, meta
