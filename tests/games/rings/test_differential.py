"""The compiled kernel (behind RingsState) agrees with the slow reference engine (tests/.../reference.py).

On thousands of seeded random positions for 2, 3 and 6 players: the same legal actions,
the same successor positions, the same scores, circle control and results, also around
resignations and on positions read from strings; perft through the kernel; batched
kernel playouts return consistent arrays.
"""

import random

import numpy as np
import pytest

from ringgames import load_game
from ringgames.games.rings import kernel as K
from ringgames.games.rings.board import NUM_CIRCLES, NUM_POINTS
from ringgames.games.rings.notation import END, PASS

from .reference import ReferenceRingsGame


def same(fast, ref, deep=False):
    assert fast.position() == ref.position()
    assert fast.legal_actions() == ref.legal_actions()
    assert fast.outcome() == ref.outcome()
    assert fast.current_player() == ref.current_player()
    assert fast.scores() == ref.scores()
    assert fast.returns() == ref.returns()
    if deep:
        n = fast.num_players
        assert fast.convertible_circles() == ref.convertible_circles()
        assert [fast.majority(c) for c in range(NUM_CIRCLES)] == [ref.majority(c) for c in range(NUM_CIRCLES)]
        assert [fast.ring_owner(c) for c in range(NUM_CIRCLES)] == [ref.ring_owner(c) for c in range(NUM_CIRCLES)]
        assert [fast.is_safe(p) for p in range(NUM_POINTS)] == [ref.is_safe(p) for p in range(NUM_POINTS)]
        assert [fast.influence(p, c) for c in range(NUM_CIRCLES) for p in range(n)] == [
            ref.influence(p, c) for c in range(NUM_CIRCLES) for p in range(n)
        ]


def choose(rng, legal, pass_bias):
    """A random action, biased towards conversions and, on a fuller board, passes (pass-convert turns)."""
    if PASS in legal and len(legal) < 80 and rng.random() < pass_bias:
        return PASS
    if legal[-1] == END and len(legal) > 1 and rng.random() < 0.6:
        return rng.choice(legal[:-1])
    return rng.choice(legal)


@pytest.mark.parametrize("players,games", [(2, 8), (3, 6), (6, 6)])
def test_kernel_and_reference_agree_on_random_games(players, games):
    fast_game, ref_game = load_game("rings", players=players), ReferenceRingsGame(players=players)
    positions = 0
    for seed in range(games):
        rng = random.Random(1000 * players + seed)
        pass_bias = (0.0, 0.05, 0.3)[seed % 3]
        fast, ref = fast_game.new_initial_state(), ref_game.new_initial_state()
        resign_at = rng.randrange(50, 400) if players > 2 and seed % 2 else -1
        while True:
            same(fast, ref, deep=positions % 25 == 0)
            positions += 1
            legal = fast.legal_actions()
            if not legal:
                break
            if len(fast.history) == resign_at:
                who = rng.choice(fast.active_players())
                fast.resign(who)
                ref.resign(who)
                continue
            # every successor of this position agrees too (one ply deep), and undo restores it
            if positions % 15 == 0:
                before = fast.position()
                for a in legal:
                    fast.apply_action(a)
                    ref.apply_action(a)
                    assert fast.position() == ref.position() and fast.outcome() == ref.outcome()
                    assert fast.scores() == ref.scores()
                    fast.undo_action()
                    ref.undo_action()
                assert fast.position() == before
            a = choose(rng, legal, pass_bias)
            fast.apply_action(a)
            ref.apply_action(a)
        # the whole game backwards: undo agrees at every step
        for _ in range(min(40, len(fast.history))):
            fast.undo_action()
            ref.undo_action()
            same(fast, ref)
    assert positions > 1800


@pytest.mark.parametrize("players", [2, 3, 6])
def test_kernel_agrees_on_positions_read_from_strings(players):
    rng = random.Random(players)
    game, ref_game = load_game("rings", players=players), ReferenceRingsGame(players=players)
    for _ in range(40):
        s = game.new_initial_state()
        for _ in range(rng.randrange(0, 500)):
            if s.is_terminal():
                break
            s.apply_action(choose(rng, s.legal_actions(), 0.05))
        if players > 2 and not s.is_terminal() and rng.random() < 0.5:
            s.resign(rng.choice(s.active_players()))
        text = s.position()
        f, r = game.state_from_position(text), ref_game.state_from_position(text)
        same(f, r, deep=True)
        assert f.legal_actions() == s.legal_actions()
        assert f.hash_key() == s.hash_key()
        # the kernel's rebuild gives the same array as the incremental updates
        assert (f.s == s.s).all()


def test_perft_through_the_kernel():
    s = load_game("rings", players=2).new_initial_state()
    assert K.perft(s.s, 1) == 217
    assert K.perft(s.s, 2) == 46_873
    assert s.perft(3) == 10_077_912
    assert load_game("rings", players=3).new_initial_state().perft(2) == 216 * 216 + 217
    # after some moves, kernel perft equals the reference's generic perft
    rng = random.Random(3)
    for players in (2, 3, 6):
        s = load_game("rings", players=players).new_initial_state()
        ref = ReferenceRingsGame(players=players).new_initial_state()
        for _ in range(250):
            a = choose(rng, s.legal_actions(), 0.05)
            s.apply_action(a)
            ref.apply_action(a)
        assert s.perft(2) == ref.perft(2)


@pytest.mark.parametrize("players", [2, 3, 6])
def test_batched_playouts_return_consistent_arrays(players):
    s = load_game("rings", players=players).new_initial_state()
    count = 60
    res = s.random_playouts(count, seed=11)
    ret, scores, winners, length = res["returns"], res["scores"], res["winners"], res["length"]
    assert ret.shape == (count, players) and ret.dtype == np.float64
    assert scores.shape == (count, players) and winners.shape == (count,) and length.shape == (count,)
    assert np.allclose(ret.sum(axis=1), 0.0)
    # most random games fill most of the board (N passes in a row end a few early)
    assert (length >= NUM_POINTS // 2).mean() >= 0.9
    for i in range(count):
        best = scores[i].max()
        mask = sum(1 << p for p in range(players) if scores[i, p] == best)
        assert winners[i] == mask
        w = bin(mask).count("1")
        for p in range(players):
            expected = 0.0 if w == players else (1.0 / w if mask >> p & 1 else -1.0 / (players - w))
            assert ret[i, p] == pytest.approx(expected)
    assert scores.sum(axis=1).max() <= NUM_CIRCLES
    # the same seed gives the same playouts; another seed other ones
    again = s.random_playouts(count, seed=11)
    assert (again["length"] == length).all() and (again["scores"] == scores).all()
    assert (s.random_playouts(count, seed=12)["length"] != length).any()
    # the state itself is unchanged
    assert s.position() == load_game("rings", players=players).new_initial_state().position()


def test_batched_playouts_from_a_position_with_a_resigned_seat():
    s = load_game("rings", players=3).new_initial_state()
    for a in ("K12", "end", "pass", "A11"):
        if a == "end" and s.phase() == "place":
            continue
        s.play(a)
    s.resign(1)
    res = s.random_playouts(30, seed=2)
    assert (res["returns"][:, 1] <= 0).all()
    assert (res["winners"] & 0b010 == 0).all()
    assert (res["scores"][:, 1] == 0).all()
    with pytest.raises(ValueError):
        t = load_game("rings", players=2).new_initial_state()
        t.resign()
        t.random_playouts(3)


def test_kernel_playouts_match_protocol_statistics():
    """Kernel playouts and protocol playouts play the same game: similar lengths on average."""
    game = load_game("rings", players=2)
    kernel = game.new_initial_state().random_playouts(200, seed=5)["length"].mean()
    rng = random.Random(5)
    lengths = []
    for _ in range(20):
        s = game.new_initial_state()
        n = 0
        while not s.is_terminal():
            legal = s.legal_actions()
            s.apply_action(legal[int(rng.random() * len(legal))])
            n += 1
        lengths.append(n)
    assert abs(np.mean(lengths) - kernel) < 0.1 * kernel


def test_clones_share_no_writable_array_after_undo():
    """Undo records are shared by clones; playing after an undo must not write into them."""
    s = load_game("rings", players=2).new_initial_state()
    s.play("K12")
    c = s.clone()
    s.undo_action()
    c.undo_action()
    s.play("A11")
    assert c.position() == load_game("rings", players=2).new_initial_state().position()
    c.play("L1")
    assert s.owner(0) == -1 and s.position().startswith("2/4/6/8/10/12/12/12/12/12/r11/12/")
