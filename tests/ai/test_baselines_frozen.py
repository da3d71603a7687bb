"""``baseline:N`` is frozen as spec strings (``ai/levels.py``), and the code behind them (the Python alpha-beta, the
Python MCTS, the evaluations, the tactics) changed during issue #35. These tests check that the searches behind the
baselines still choose what they chose before the issue: the answers in ``data/baseline_answers.json`` were
computed at commit 8b4beaa^ (the levels then, what ``baseline:N`` names) by :func:`answers` below, at a fixed depth or
number of iterations, so the clock plays no part."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from ringgames import load_game
from ringgames.ai.agents import make_agent
from ringgames.ai.levels import BASELINES, BASELINES_MULTI

DATA = json.loads((Path(__file__).parent / "data" / "baseline_answers.json").read_text())


def position(game: str, players: int, seed: int, plies: int):
    """A state ``plies`` random legal actions into a game, from ``seed``."""
    s = load_game(game, None, players).new_initial_state()
    rng = random.Random(seed * 1000 + plies)
    for _ in range(plies):
        s.apply_action(rng.choice(s.legal_actions()))
    return s


def answers(rows) -> list[str]:
    return [(s := position(game, players, seed, plies)).action_to_string(make_agent(spec).choose(s))
            for game, players, spec, seed, plies, _, _ in rows]


def test_the_recorded_positions_are_those_the_seeds_give():
    assert len(DATA["rows"]) == 30 and {r[0] for r in DATA["rows"]} == {"yinsh", "gyges", "rings"}
    for game, players, _, seed, plies, pos, _ in DATA["rows"]:
        assert position(game, players, seed, plies).position() == pos


@pytest.mark.parametrize("game", ["yinsh", "gyges", "rings"])
def test_the_baselines_searches_choose_what_they_chose_before_issue_35(game):
    rows = [r for r in DATA["rows"] if r[0] == game]
    assert answers(rows) == [r[6] for r in rows]


def test_the_answers_cover_the_kinds_of_the_baselines():
    kinds = {spec.split(":")[0] for table in (BASELINES, BASELINES_MULTI) for level in table.values()
             for spec in level.values()}
    assert kinds == {"greedy", "alphabeta", "mcts"}  # greedy: unchanged code, tested in test_agents.py
    covered = {(r[0], r[2].split(":")[0]) for r in DATA["rows"]}
    assert covered >= {("yinsh", "alphabeta"), ("gyges", "alphabeta"), ("rings", "alphabeta"), ("rings", "mcts")}
