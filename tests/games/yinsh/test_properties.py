"""Invariants of the YINSH engine on random games (hypothesis)."""

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from ringgames import deserialize_state, load_game
from ringgames.games.yinsh import transform_action
from ringgames.games.yinsh.formats import parse_gipf, to_gipf
from ringgames.records import Record, loads


def random_state(seed: int, plies: int, variant="standard"):
    rng = random.Random(seed)
    s = load_game("yinsh", variant).new_initial_state()
    for _ in range(plies):
        if s.is_terminal():
            break
        s.apply_action(rng.choice(s.legal_actions()))
    return s


seeds = st.integers(0, 10**6)


@settings(max_examples=40, deadline=None)
@given(seeds, st.integers(0, 140))
def test_apply_undo_restores_everything(seed, plies):
    s = random_state(seed, plies)
    before = (s.position(), s.legal_actions(), s.history[:], s.removed[:], s.pool)
    for a in s.legal_actions()[:30]:
        s.apply_action(a)
        s.undo_action()
        assert (s.position(), s.legal_actions(), s.history, s.removed, s.pool) == before
    # undo the whole game back to the start
    while s.history:
        s.undo_action()
    assert s.position() == load_game("yinsh").new_initial_state().position()


@settings(max_examples=30, deadline=None)
@given(seeds, st.integers(0, 160))
def test_serialize_position_and_record_round_trips(seed, plies):
    s = random_state(seed, plies)
    t = deserialize_state(s.serialize())
    assert t.position() == s.position() and t.history == s.history and t.legal_actions() == s.legal_actions()
    p = s.game.state_from_position(s.position())
    assert p.position() == s.position() and p.legal_actions() == s.legal_actions()
    assert p.is_terminal() == s.is_terminal()
    r = loads(Record.from_state(s).dumps())[0].replay()
    assert r.history == s.history and r.result_string() == s.result_string()
    g = parse_gipf(to_gipf(s))[0].replay()
    assert g.history == s.history


@settings(max_examples=30, deadline=None)
@given(seeds, st.integers(0, 150), st.integers(1, 11))
def test_symmetries_map_legal_actions_to_legal_actions(seed, plies, k):
    s = random_state(seed, plies)
    t = s.transformed(k)
    assert sorted(transform_action(a, k) for a in s.legal_actions()) == t.legal_actions()
    if s.legal_actions():
        a = random.Random(seed).choice(s.legal_actions())
        s.apply_action(a)
        t.apply_action(transform_action(a, k))
        assert s.transformed(k).position() == t.position()


@settings(max_examples=25, deadline=None)
@given(seeds)
def test_random_games_end_and_keep_the_marker_count(seed):
    s = random_state(seed, 10_000, variant=random.Random(seed).choice(["standard", "blitz"]))
    assert s.is_terminal()
    markers = sum(1 for v in s.board if v in (1, 2))
    assert markers == s.markers == 51 - s.pool
    assert 0 <= s.pool <= 51
    out = s.outcome()
    if out.reason == "markers":
        assert s.pool == 0
        w, b = s.removed
        assert s.result_string() == ("draw" if w == b else "white" if w > b else "black")
    elif out.reason == "rings":
        assert max(s.removed) == s.game.rings_to_win


def test_a_row_made_with_the_last_marker_returns_five_and_play_goes_on():
    found = 0
    for seed in range(400):
        rng = random.Random(seed)
        s = load_game("yinsh").new_initial_state()
        while not s.is_terminal():
            before = s.phase
            s.apply_action(rng.choice(s.legal_actions()))
            if before == "move" and s.pool == 0 and s.phase == "row":
                found += 1
                while s.phase in ("row", "ring") and not s.is_terminal():
                    s.apply_action(s.legal_actions()[0])
                if not s.is_terminal():
                    assert s.pool >= 5 and s.phase == "move"
                break
        if found >= 2:
            break
    assert found >= 2


def test_clone_and_original_never_share_a_writable_array():
    s = load_game("yinsh").new_initial_state()
    s.play("e3")
    c = s.clone()
    s.undo_action()
    c.undo_action()
    s.play("a5")
    assert c.position() == load_game("yinsh").new_initial_state().position()
    c.play("b5")
    assert s.board[s._parse_action("b5")] == 0 and s.board[s._parse_action("a5")] == 3
