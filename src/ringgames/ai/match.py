"""Matches between agents: seating, parallel games, score and Elo with a 95% interval.

Two agent specs A and B: game ``i`` seats A first when ``i`` is even and second
when it is odd (colours alternate). With more seats than specs (RINGS with
``players`` > number of specs) or more than two specs, the specs are dealt
round the table and the deal rotates by one seat each game.

A game's *score* for A: 1 for a win, 0.5 for a draw, 0 for a loss (two
players). With more than two players A's score is pairwise: against each
other seat held by a different spec, 1 if A won and it did not, 0 if the
reverse, 0.5 otherwise; the game's score is the mean over those pairs.

Elo: the logistic formula ``400·log10(s / (1 − s))`` on the mean score ``s``; the
95% interval maps the score's interval (:func:`score_interval`: Wilson's score interval with
the observed draws) the same way. From two games on, a score (or interval end) nearer the edge than
``1/(2n)`` — 0 or 1 — is clipped to ``1/(2n)`` from it (``elo_clipped`` says the score was). One game
gives no Elo estimate: the clip would be ½, so every result would read as +0; ``elo``, ``elo_low`` and
``elo_high`` are then None (``null`` in ``--json``) and ``elo_clipped`` is false.

>>> round(elo_from_score(0.75), 1)
190.8
>>> elo_summary([1.0, 0.0, 0.5, 1.0])["score"]
0.625
"""

from __future__ import annotations

import math
import random
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass, field

from .. import load_game
from .agents import Agent, AgentError, make_agent, with_seed

__all__ = ["GameResult", "play_game", "seating", "run_match", "elo_from_score", "elo_summary", "won_by_side"]


@dataclass
class GameResult:
    index: int
    seats: list[str]  # spec per seat
    returns: list[float]
    winners: list[int]
    reason: str
    actions: int
    history: list[str] = field(default_factory=list)
    seconds: float = 0.0
    think: dict = field(default_factory=dict)  # spec -> seconds spent choosing
    error: str | None = None  # why the game ended as an error (reason "error"): no result

    def score_for(self, spec: str) -> float | None:
        """A's score in this game (see the module docs); None if the spec did not play or the
        game ended as an error (an external engine's illegal move, crash or timeout)."""
        if self.reason == "error":
            return None
        mine = [p for p, s in enumerate(self.seats) if s == spec]
        others = [p for p, s in enumerate(self.seats) if s != spec]
        if not mine or not others:
            return None
        n = len(self.seats)
        if n == 2:
            r = self.returns[mine[0]]
            return 1.0 if r > 0 else 0.0 if r < 0 else 0.5
        total = 0.0
        for p in mine:
            for q in others:
                wp, wq = p in self.winners, q in self.winners
                total += 1.0 if wp and not wq else 0.0 if wq and not wp else 0.5
        return total / (len(mine) * len(others))

    def side_for(self, spec: str) -> float | None:
        """Who won, for ``spec``'s side: 1 if only its seats won, 0 if only other seats did, 0.5 if seats of both
        shared the win or nobody won; None if the spec did not play or the game ended as an error. With two seats
        it is :meth:`score_for`; with more it is what :func:`won_by_side` counts (and what ``match --sprt`` tests).

        >>> r = GameResult(0, ["A", "B", "A", "B"], [], [2], "x", 1)
        >>> r.side_for("A"), r.side_for("B"), r.score_for("A")
        (1.0, 0.0, 0.75)
        """
        if self.reason == "error" or spec not in self.seats:
            return None
        mine = any(self.seats[p] == spec for p in self.winners)
        theirs = any(self.seats[p] != spec for p in self.winners)
        return 0.5 if mine == theirs else 1.0 if mine else 0.0


def seating(specs: list[str], players: int, index: int) -> list[str]:
    """The spec of each seat in game ``index``."""
    k = len(specs)
    if players == 2 and k == 2:
        return [specs[0], specs[1]] if index % 2 == 0 else [specs[1], specs[0]]
    return [specs[(seat + index) % k] for seat in range(players)]


def play_game(game_name: str, seats: list[str], index: int = 0, seed: int = 0, variant: str | None = None,
              players: int | None = None, max_actions: int = 20_000, position: str | None = None,
              opening: int = 0, opening_key: int | None = None) -> GameResult:
    """Play one game between seat specs (each seat gets its own agent, seeded from ``seed`` and ``index``).

    ``opening``: the first ``opening`` decisions are uniformly random instead of the agents' (an action that would end
    the game is not drawn while another is legal: a game decided before any agent moved tells nothing; drawn from ``seed`` and
    ``opening_key``, default ``index``: games with the same key start alike, so that :func:`run_match` gives each
    pairing of seats the same random opening).

    An :class:`~ringgames.ai.agents.AgentError` (an external engine's illegal move, exit or
    timeout) ends the game with reason ``"error"`` and the message in ``error``; agents with a
    ``close()`` (external engines) are closed at the end whatever happens.
    """
    game = load_game(game_name, variant, players or len(seats))
    state = game.new_initial_state() if position is None else game.state_from_position(position)
    agents: dict[int, Agent] = {}
    by_spec: dict[str, Agent] = {}
    think: dict[str, float] = {}
    t0 = time.perf_counter()
    n = 0
    names: list[str] = []
    error: str | None = None
    culprit = "?"
    try:
        for p, spec in enumerate(seats):
            if spec not in by_spec:  # one agent per distinct spec (a spec sitting twice keeps one tree)
                by_spec[spec] = make_agent(with_seed(spec, seed * 100_003 + index * 101 + p), external=True)
            agents[p] = by_spec[spec]
        think = {s: 0.0 for s in by_spec}
        for spec, ag in by_spec.items():
            culprit = spec  # named in the error if its new_game fails
            start = getattr(ag, "new_game", None)
            if start is not None:
                start(game)
        rng = random.Random(f"opening {seed} {index if opening_key is None else opening_key}")
        while not state.is_terminal() and n < max_actions:
            p = state.current_player()
            culprit = seats[p]
            if n < opening:
                a = _opening_action(state, rng)
            else:
                t = time.perf_counter()
                a = agents[p].choose(state)
                think[seats[p]] += time.perf_counter() - t
            if a not in state.legal_actions():
                raise RuntimeError(f"agent {seats[p]} chose an illegal action {a} in {state.position()}")
            names.append(state.action_to_string(a))
            state.apply_action(a)
            n += 1
    except AgentError as exc:
        error = f"{culprit}: {exc}"[:500]
    finally:
        for ag in by_spec.values():
            close = getattr(ag, "close", None)
            if close is not None:
                close()
    out = state.outcome()
    if error is not None:
        return GameResult(index=index, seats=list(seats), returns=[0.0] * game.num_players, winners=[],
                          reason="error", actions=n, history=names, seconds=time.perf_counter() - t0, think=think,
                          error=error)
    return GameResult(
        index=index, seats=list(seats), returns=state.returns(), winners=list(out.winners) if out else [],
        reason=out.reason if out else "unfinished", actions=n, history=names, seconds=time.perf_counter() - t0,
        think=think,
    )


def _opening_action(state, rng: random.Random) -> int:
    """A random action of the opening: uniform, redrawn among the others if it would end the game."""
    legal = state.legal_actions()
    a = rng.choice(legal)
    if not _ends(state, a):
        return a
    others = [b for b in legal if not _ends(state, b)]
    return rng.choice(others) if others else a


def _ends(state, action: int) -> bool:
    after = state.clone()
    after.apply_action(action)
    return after.is_terminal()


def _play_job(args):
    return play_game(*args[0], **args[1])


def elo_from_score(s: float) -> float:
    return -400.0 * math.log10(1.0 / s - 1.0)


def score_interval(scores: list[float], z: float = 1.96) -> tuple[float, float]:
    """The 95% interval of the mean score: Wilson's score interval, with draws.

    A game scores 1, ½ or 0; with the observed draw fraction d, a mean score p has variance
    ``p(1 − p) − d/4`` per game. The interval is every p with ``(s − p)² ≤ z²·(p(1 − p) − d/4)/n``
    (Wilson's interval when there are no draws): it stays wide after few games and keeps room
    on the far side of a clean sweep (100 wins of 100: 0.963–1).

    >>> [round(x, 3) for x in score_interval([1.0, 1.0])]
    [0.342, 1.0]
    """
    n = len(scores)
    if n == 0:
        return 0.0, 1.0
    s = sum(scores) / n
    d = sum(1 for x in scores if x == 0.5) / n
    k = z * z / n
    a, b, c = 1 + k, -(2 * s + k), s * s + k * d / 4
    root = math.sqrt(max(0.0, b * b - 4 * a * c))
    return max(0.0, (-b - root) / (2 * a)), min(1.0, (-b + root) / (2 * a))


def elo_summary(scores: list[float]) -> dict:
    """Mean score, Elo and the 95% interval of per-game scores (see the module docs).

    ``elo``, ``elo_low`` and ``elo_high`` are None with fewer than two scores (no estimate: see the
    module docs); ``elo_clipped``: the score lay nearer 0 or 1 than ``1/(2n)`` and its Elo is that of
    ``1/(2n)`` from the edge (a bound, not an estimate).

    >>> e = elo_summary([1.0])
    >>> e["score"], e["elo"], e["elo_clipped"]
    (1.0, None, False)
    >>> e = elo_summary([1.0, 1.0])
    >>> round(e["elo"]), e["elo_clipped"]
    (191, True)
    """
    n = len(scores)
    if n == 0:
        return {"score": None, "score_low": None, "score_high": None, "elo": None, "elo_low": None,
                "elo_high": None, "elo_clipped": False}
    s = sum(scores) / n
    low, high = score_interval(scores)
    if n < 2:
        return {"score": s, "score_low": low, "score_high": high, "elo": None, "elo_low": None,
                "elo_high": None, "elo_clipped": False}
    eps = 0.5 / n
    clip = lambda x: min(1.0 - eps, max(eps, x))  # noqa: E731
    return {
        "score": s,
        "score_low": low,
        "score_high": high,
        "elo": elo_from_score(clip(s)),
        "elo_low": elo_from_score(clip(low)),
        "elo_high": elo_from_score(clip(high)),
        "elo_clipped": s < eps or s > 1.0 - eps,
    }


def run_match(game_name: str, specs: list[str], games: int = 10, seed: int = 0, jobs: int = 1,
              variant: str | None = None, players: int | None = None, progress=None, on_result=None,
              ray: str | None = None, ray_cpus: int | None = None, stop=None, opening: int = 0) -> dict:
    """Play ``games`` games; returns a summary for ``specs[0]`` (A) against the others.

    ``opening``: each game's first ``opening`` decisions are random, the same in the games of one round of seatings
    (games ``k·j`` to ``k·j + k - 1`` for ``k`` specs: with two, each opening is played once with each colour), so
    that deterministic agents do not replay one game, and neither side gains from the openings.

    ``stop()``: called after each finished game (after ``on_result``); once it returns true no more
    games are started (a sequential test such as the SPRT ends the match; not with ``ray``). The
    summary then covers the games played (``games`` in it is their number).

    ``progress``: a tqdm-like object with ``update()``; ``on_result(GameResult)``
    is called as each game finishes. ``ray``: run the games as Ray tasks (``ringgames.raytasks``):
    ``""`` a local Ray instance (``ray_cpus`` CPUs, default all) or ``$RAY_ADDRESS``, else a cluster's
    address; None (default): ``jobs`` local processes. The results are the same either way.
    """
    nplayers = players or (len(specs) if len(specs) > 2 else 2)
    jobs_args = [((game_name, seating(specs, nplayers, i), i, seed),
                  {"variant": variant, "players": nplayers, "opening": opening, "opening_key": i // len(specs)})
                 for i in range(games)]
    results: list[GameResult] = []

    def done(r: GameResult) -> None:
        results.append(r)
        if on_result:
            on_result(r)
        if progress:
            progress.update(1)

    if ray is not None:
        from ..raytasks import imap_unordered, session

        with session(ray, num_cpus=ray_cpus):
            for r in imap_unordered(_play_job, [(a,) for a in jobs_args]):
                done(r)
    elif jobs > 1:
        with ProcessPoolExecutor(max_workers=jobs) as ex:
            futs = [ex.submit(_play_job, a) for a in jobs_args]
            for f in as_completed(futs):
                if f.cancelled():
                    continue
                done(f.result())
                if stop is not None and stop():
                    for other in futs:
                        other.cancel()  # games not started yet; those running finish and count
    else:
        for a in jobs_args:
            done(_play_job(a))
            if stop is not None and stop():
                break
    results.sort(key=lambda r: r.index)
    return summarise(specs, results)


def won_by_side(spec: str, results: list[GameResult]) -> dict:
    """With more than two seats, who won each game (errors left out): ``a`` (only ``spec``'s seats), ``others``
    (only the other agents' seats), ``shared`` (seats of both), ``none``; ``share``: A's share of the games, a shared
    win or none counted half, with its 95% interval. Equal sides win half the games; a side that wins every game
    has share 1 (its pairwise score, with two seats each of four, is only 0.75: its seat that did not win is level
    with the other side's seats).

    >>> g = lambda w: GameResult(0, ["A", "B", "A", "B"], [], w, "x", 1)
    >>> won = won_by_side("A", [g([0]), g([2]), g([1]), g([0, 1])])
    >>> won["a"], won["others"], won["shared"], won["share"]
    (2, 1, 1, 0.625)
    """
    counts = {"a": 0, "others": 0, "shared": 0, "none": 0}
    values: list[float] = []
    for r in results:
        v = r.side_for(spec)
        if v is None:
            continue
        key = "a" if v == 1.0 else "others" if v == 0.0 else "shared" if r.winners else "none"
        counts[key] += 1
        values.append(v)
    n = len(values)
    low, high = score_interval(values) if n else (None, None)
    return {**counts, "share": sum(values) / n if n else None, "share_low": low, "share_high": high}


def summarise(specs: list[str], results: list[GameResult]) -> dict:
    a = specs[0]
    scores = [s for s in (r.score_for(a) for r in results) if s is not None]
    out = {
        "agents": list(specs),
        "games": len(results),
        "wins": sum(1 for x in scores if x == 1.0),
        "draws": sum(1 for x in scores if 0.0 < x < 1.0),
        "losses": sum(1 for x in scores if x == 0.0),
    }
    out.update(elo_summary(scores))
    if any(len(r.seats) > 2 for r in results):
        out["won"] = won_by_side(a, results)
    out["mean_actions"] = sum(r.actions for r in results) / len(results) if results else 0
    think = {}
    for s in dict.fromkeys(specs):
        tot = sum(r.think.get(s, 0.0) for r in results)
        think[s] = tot
    out["think_seconds"] = think
    out["unfinished"] = sum(1 for r in results if r.reason == "unfinished")
    out["errors"] = [f"game {r.index + 1}: {r.error}" for r in results if r.reason == "error"]
    return out


if __name__ == "__main__":  # pragma: no cover
    print(run_match("yinsh", ["greedy", "random"], games=4, seed=random.randrange(100)))
