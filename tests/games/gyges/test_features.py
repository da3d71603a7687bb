"""The Gygès evaluation on the compiled feature query, against the former slow formula.

The reference below is the evaluation as it was before ``state.features()``: the board
parsed from the position string, the targets of each side from ``kernel.movable_targets``
(Python sets), the features counted in Python. A second check counts the features from the
independent test oracle (``reference_moves``, written from the rules text).
"""

from __future__ import annotations

import pytest

from ringgames import load_game
from ringgames.ai.evaluation import gyges as ev
from ringgames.games.gyges import GOAL
from ringgames.games.gyges.kernel import movable_targets

from .helpers import random_states, reference_moves


def _parse(state):
    rows, _, side = state.position().partition(" ")
    board = [int(ch) for ch in rows.replace("/", "")]
    if len(board) != 36 or sum(1 for v in board if v) < 12:
        return None
    return board, (0 if side.strip().upper().startswith("S") else 1)


def _old_features(board, side, replace):
    threat, approach, mob = False, set(), 0
    home = 5 if side == 0 else 0
    for _s, ends, reps, _drops in movable_targets(board, side, replace):
        threat = threat or GOAL in ends
        mob += len(ends) + len(reps)
        approach |= {e for e in ends if e != GOAL and e // 6 == home}
        approach |= {e for e in reps if e // 6 == home}
    return int(threat), len(approach), mob


def _old_evaluate(state):
    parsed = _parse(state)
    if parsed is None:
        return [0.0, 0.0]
    board, side = parsed
    replace = state.game.variant != "beginner"
    t0, a0, m0 = _old_features(board, 0, replace)
    t1, a1, m1 = _old_features(board, 1, replace)
    score = 15.0 * (a0 - a1) + 2.0 * (m0 - m1)
    sign = 1.0 if side == 0 else -1.0
    if (t0, t1)[side]:
        score += sign * 800.0
    if (t0, t1)[1 - side]:
        score -= sign * 350.0
    return [score, -score]


def _oracle_features(board, side, replace):
    moves = reference_moves(board, side, replace)
    if moves == {"pass"}:
        return 0, 0, 0
    home = 5 if side == 0 else 0
    targets = {(s, e) for s, e, _d in moves}
    threat = int(any(e == "G" for _s, e in targets))
    approach = {e for _s, e in targets if e != "G" and e // 6 == home}
    return threat, len(approach), len(targets)


@pytest.mark.parametrize("variant", ["standard", "beginner"])
def test_features_and_evaluation_match_the_former_formula(variant):
    states = random_states(11 if variant == "standard" else 12, 200, variant)
    seen_threat = seen_beyond = 0
    for s in states:
        board, side = _parse(s)
        replace = variant != "beginner"
        f = s.features()
        assert f == _old_features(board, 0, replace) + _old_features(board, 1, replace), s.position()
        assert ev.evaluate(s) == _old_evaluate(s), s.position()
        old_win = any(GOAL in ends for _s, ends, _r, _d in movable_targets(board, side, replace))
        assert ev.may_win_within_turn(s) is old_win, s.position()
        seen_threat += f[0] + f[3]
        seen_beyond += f[2] > 0
    assert seen_threat > 20 and seen_beyond > 20  # the sample exercises the features


def test_features_match_the_rules_oracle():
    for s in random_states(5, 40) + random_states(6, 20, "beginner"):
        board, _side = _parse(s)
        replace = s.game.variant != "beginner"
        assert s.features() == _oracle_features(board, 0, replace) + _oracle_features(board, 1, replace), s.position()


def test_features_outside_play_and_after_a_win():
    g = load_game("gyges")
    s = g.new_initial_state()
    assert s.features() is None and ev.evaluate(s) == [0.0, 0.0] and not s.goal_reachable()
    s.apply_action(0)
    assert s.features() is None and not s.goal_reachable()
    s = g.state_from_position("321123/000000/000000/000000/000000/321123 S")
    # at the start nobody reaches a goal or the far row; the 1s and 2s of row 1 can move
    t0, a0, m0, t1, a1, m1 = s.features()
    assert (t0, a0, t1, a1) == (0, 0, 0, 0) and m0 == m1 > 0
    s = next(x for x in random_states(21, 200) if x.goal_reachable())
    assert s.features()[3 * s.current_player()] == 1
    s.apply_action(next(a for a in s.legal_actions() if s.action_to_string(a).endswith("G")))
    assert s.is_terminal() and s.features() is None and not s.goal_reachable()
    assert ev.evaluate(s) == [0.0, 0.0]


def test_distinct_actions_are_one_per_successor_position():
    for s in random_states(3, 60) + random_states(4, 20, "beginner"):
        d = s.distinct_actions()
        keys = s.successor_keys()
        assert d == sorted(keys.values())  # the smallest action of each successor position
        assert len(d) <= len(s.legal_actions()) and set(d) <= set(s.legal_actions())
    setup = load_game("gyges").new_initial_state()
    assert setup.distinct_actions() == setup.legal_actions()
