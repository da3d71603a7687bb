"""perft, apply/undo, clone, convert-all, and property tests against an independent reading of the rules."""

import random

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from ringgames import load_game
from ringgames.games.rings.board import NUM_CIRCLES, NUM_POINTS
from ringgames.games.rings.notation import CONVERT0, END, PASS

from .helpers import make, random_state, reference

SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def test_perft_empty_two_players():
    s = load_game("rings", players=2).new_initial_state()
    assert s.perft(0) == 1
    assert s.perft(1) == 217
    assert s.perft(2) == 46_873
    assert s.position() == load_game("rings", players=2).new_initial_state().position()


def test_perft_three_two_players_by_hand():
    # depth 3: (216 places x (215 places + pass) x 216/215 replies) worked out by hand:
    # red places (216): blue places (215) -> red 215 options; blue passes -> red 216 options.
    # red passes: blue places (216) -> red 216 options; blue passes -> game over (0 at depth 3).
    expected = 216 * 215 * 215 + 216 * 216 + 216 * 216
    assert load_game("rings", players=2).new_initial_state().perft(3) == expected


def test_perft_more_players_and_convert_phase():
    assert load_game("rings", players=3).new_initial_state().perft(2) == 216 * 216 + 217
    # a turn in its convert phase: pass, then (xLM12 | end)
    s = make(2, {0: "L11 M11 N12 M13 L13 N14", 1: "K12 M15"})
    s.play("pass")
    # xLM12 -> (xLM14 | end); end -> blue: 208 empty points + pass
    assert s.perft(1) == 2
    assert s.perft(2) == 2 + 209


def check_against_reference(s):
    rings, infl, maj, convertible, safe = reference(s)
    assert [s.ring_owner(c) for c in range(NUM_CIRCLES)] == rings
    assert [s.majority(c) for c in range(NUM_CIRCLES)] == maj
    act = s.active_players()
    assert all(s.influence(p, c) == infl[c][p] for c in range(NUM_CIRCLES) for p in act)
    assert s.scores() == [sum(m == p for m in maj) for p in range(s.num_players)]
    assert [s.is_safe(p) for p in range(NUM_POINTS)] == safe
    if not s.is_terminal():
        acts = s.legal_actions()
        if s.phase() == "place":
            assert acts == [p for p in range(NUM_POINTS) if s.owner(p) < 0] + [PASS]
        else:
            assert acts == [CONVERT0 + c for c in convertible] + [END] and convertible


@SETTINGS
@given(st.integers(2, 6), st.integers(0, 2**32 - 1))
@example(3, 5)  # a resignation while the mover's pass turn had only conversions left
def test_random_game_matches_reference_and_properties(players, seed):
    rng = random.Random(seed)
    s = load_game("rings", players=players).new_initial_state()
    resign_at = rng.randrange(400) if players > 2 else -1
    steps = 0
    while not s.is_terminal():
        if steps == resign_at:
            mover, phase = s.current_player(), s.position().split()[2]
            resigned = rng.choice(s.active_players())
            s.resign(resigned)
            resign_at = -1
            # the pass count restarts at 0; a pass turn that the resignation ends (its conversions gone) then counts
            ended_pass = phase == "pass-convert" and resigned != mover and s.current_player() != mover
            assert len(s.active_players()) == players - 1 and s.pass_count() == (1 if ended_pass else 0)
            check_against_reference(s)
            continue
        p = s.current_player()
        before_owner = [s.owner(q) for q in range(NUM_POINTS)]
        before_safe = [s.is_safe(q) for q in range(NUM_POINTS)]
        before_inf = [s.influence(p, c) for c in range(NUM_CIRCLES)]
        acts = s.legal_actions()
        a = acts[rng.randrange(len(acts))] if rng.random() < 0.7 else acts[0]
        s.apply_action(a)
        steps += 1
        # ring stones never change owner
        assert all(s.owner(q) == before_owner[q] for q in range(NUM_POINTS) if before_safe[q])
        if CONVERT0 <= a < END:
            # converting never reduces the mover's influence anywhere
            assert all(s.influence(p, c) >= before_inf[c] for c in range(NUM_CIRCLES))
            assert sum(s.owner(q) == p for q in range(NUM_POINTS)) > before_owner.count(p)
        if steps % 25 == 0 or s.is_terminal():
            # also: no circle gives two players majority (asserted inside reference)
            check_against_reference(s)
    check_against_reference(s)
    assert len(s.outcome().winners) >= 1


@SETTINGS
@given(st.integers(2, 6), st.integers(0, 2**32 - 1))
def test_apply_undo_restores_exactly(players, seed):
    rng = random.Random(seed)
    s = load_game("rings", players=players).new_initial_state()
    trail = []
    while not s.is_terminal() and len(trail) < 600:
        if players > 2 and rng.random() < 0.003 and len(s.active_players()) > 2:
            trail.append((s.position(), s.legal_actions(), s.scores()))
            s.resign(rng.choice(s.active_players()))
            continue
        trail.append((s.position(), s.legal_actions(), s.scores()))
        s.apply_action(rng.choice(s.legal_actions()))
    end = s.clone()
    while trail:
        s.undo_action()
        pos, acts, scores = trail.pop()
        assert (s.position(), s.legal_actions(), s.scores()) == (pos, acts, scores)
    assert s.history == []
    # the clone is independent and intact
    assert end.is_terminal() or len(end.history) >= 600
    t = load_game("rings", players=players).state_from_position(end.position())
    assert t.legal_actions() == end.legal_actions()


def test_clone_is_independent():
    s = random_state(3, random.Random(2), 60)
    c = s.clone()
    pos = s.position()
    while not c.is_terminal():
        c.apply_action(c.legal_actions()[0])
    assert s.position() == pos and c.position() != pos
    s.apply_action(s.legal_actions()[-1])
    assert c.is_terminal()


def _convert_states(n_wanted, seed):
    """Random states in a convert phase with at least two convertible circles."""
    rng = random.Random(seed)
    found = []
    while len(found) < n_wanted:
        players = rng.randint(2, 6)
        s = load_game("rings", players=players).new_initial_state()
        while not s.is_terminal() and len(found) < n_wanted:
            acts = s.legal_actions()
            if s.phase() != "place" and len(acts) >= 3:
                found.append(s.clone())
                s.apply_action(END)  # leave it, so more positions build up
                continue
            # prefer placements so that majorities build up without conversions
            s.apply_action(END if END in acts else rng.choice(acts))
    return found


def test_convert_all_is_order_independent():
    rng = random.Random(9)
    states = _convert_states(40, 4)
    multi = 0
    for s in states:
        ref = s.clone()
        applied = ref.convert_all()
        assert ref.current_player() != s.current_player() or ref.is_terminal() or len(s.active_players()) == 1
        assert len(applied) >= 2
        multi += len(applied) > 2
        for _ in range(4):
            t = s.clone()
            while t.current_player() == s.current_player() and t.phase() != "place":
                acts = t.legal_actions()
                t.apply_action(rng.choice(acts[:-1]))  # any conversion, never "end"
            assert t.position() == ref.position()
    assert multi > 0


def test_convert_all_helper_outside_convert_phase_does_nothing():
    s = load_game("rings", players=2).new_initial_state()
    assert s.convert_all() == [] and s.convertible_circles() == []


@settings(max_examples=30, deadline=None)
@given(st.integers(3, 6), st.integers(0, 2**32 - 1))
def test_records_and_serialisation_round_trip_with_resignations(players, seed):
    from ringgames import deserialize_state
    from ringgames.records import Record, loads

    rng = random.Random(seed)
    s = load_game("rings", players=players).new_initial_state()
    while not s.is_terminal():
        r = rng.random()
        if r < 0.004:
            s.resign(rng.choice(s.active_players()))  # anybody, at any moment of a turn
        else:
            acts = s.legal_actions()
            # in a convert phase prefer converting, so turns with chains and interruptions happen
            if acts[-1] == END and len(acts) > 1 and rng.random() < 0.8:
                s.apply_action(rng.choice(acts[:-1]))
            else:
                s.apply_action(rng.choice(acts))
    r = loads(Record.from_state(s).dumps())[0].replay()
    assert r.position() == s.position() and r.summary() == s.summary()
    d = deserialize_state(s.serialize())
    assert d.position() == s.position() and d.history == s.history
