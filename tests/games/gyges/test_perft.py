"""Perft and the spec's counting facts."""

import subprocess
import sys

import pytest

from ringgames import load_game
from ringgames.games.gyges import ARRANGEMENTS, GOAL, PRESETS, decode_move

from .helpers import START


def start(variant=None):
    return load_game("gyges", variant).state_from_position(START)


def test_perft_standard():
    s = start()
    assert [s.perft(d) for d in (0, 1, 2)] == [1, 211, 50_345]
    assert len(s.legal_actions()) == 224  # distinct (start, end, drop): more than the positions


def test_perft_beginner():
    s = start("no-replace")
    assert s.game.variant == "beginner"
    assert [s.perft(d) for d in (1, 2)] == [24, 574]
    assert len(s.legal_actions()) == 24


def test_perft_leaves_the_state_unchanged():
    s = start()
    before = (s.position(), s.legal_actions(), list(s.history))
    s.perft(2)
    assert (s.position(), s.legal_actions(), list(s.history)) == before


def test_perft_through_the_setup():
    s = load_game("gyges").new_initial_state()
    assert [s.perft(d) for d in (1, 2)] == [90, 8100]
    s.play("321123")
    s.play("321123")
    assert s.perft(1) == 211


def test_perft_counts_wins_once_per_start_square_and_not_below():
    # South's movable row is row 5; c5 and d5 (one ring each) can bounce on c6/d6 into the goal
    s = load_game("gyges").state_from_position("000000/000000/000000/000000/321123/321123 S")
    wins = [a for a in s.legal_actions() if decode_move(a)[1] == GOAL]
    assert sorted(s.action_to_string(a) for a in wins) == ["c5-c6-G", "d5-d6-G"]
    starts = {decode_move(a)[0] for a in wins}
    assert len(starts) == len(wins)  # one action per start square
    # a won child is a leaf: it counts at depth 1 and adds nothing at depth 2
    nonwin_children = {}
    for a in s.legal_actions():
        if decode_move(a)[1] != GOAL:
            c = s.clone()
            c.apply_action(a)
            nonwin_children.setdefault(c.position(), c)
    assert s.perft(1) == len(nonwin_children) + len(wins)
    assert s.perft(2) == sum(c.perft(1) for c in nonwin_children.values())


def test_no_first_move_can_win():
    game = load_game("gyges")
    for south in ARRANGEMENTS:
        for north in PRESETS:
            s = game.new_initial_state()
            s.play(south)
            s.play(north)
            assert all(decode_move(a)[1] != GOAL for a in s.legal_actions()), (south, north)


def test_no_first_move_from_321123_lets_north_win_at_once():
    s = start()
    seen = set()
    for a in s.legal_actions():
        s.apply_action(a)
        seen.add(s.position())
        assert all(decode_move(b)[1] != GOAL for b in s.legal_actions()), s.position()
        s.undo_action()
    assert len(seen) == 211


def test_first_move_counts_over_all_south_arrangements():
    game = load_game("gyges")
    counts = {}
    for south in ARRANGEMENTS:
        s = game.new_initial_state()
        s.play(south)
        s.play("321123")
        counts[south] = len(s.legal_actions())
    assert len(counts) == 90
    assert min(counts.values()) == 173 and max(counts.values()) == 548
    assert counts["321123"] == 224


def _cli(*args):
    r = subprocess.run([sys.executable, "-m", "ringgames", *args], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    return r.stdout.strip().splitlines()[-1]


@pytest.mark.parametrize(
    "args,expected",
    [
        (["perft", "gyges", "2"], "50345"),  # perft starts after the setup, from the reference position
        (["perft", "gyges", "2", "--position", "000000/000000/000000/000000/000000/000000 S"], "8100"),
        (["perft", "gyges", "2", "--position", START], "50345"),
        (["perft", "gyges", "1", "--position", "000000/000000/000000/000000/000000/000000 S", "--moves", "321123 321123"], "211"),
        (["perft", "gyges", "2", "--variant", "beginner", "--position", START], "574"),
        (["perft", "gyges", "1", "--variant", "no-replace"], "24"),
    ],
)
def test_perft_command(args, expected):
    assert _cli(*args) == expected


def test_perft_command_moves_start_from_the_reference_position():
    s = start()
    s.play("c1-c2")
    s.play("c6-c5")
    assert _cli("perft", "gyges", "1", "--moves", "c1-c2 c6-c5") == str(s.perft(1))
