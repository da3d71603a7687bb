"""State mechanics: apply/undo, clone, serialisation, outcomes (goal, repetition, pass), records, people."""

import random

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import ringgames
from ringgames import TERMINAL, IllegalActionError, Outcome, deserialize_state, load_game
from ringgames.games.gyges import PASS, GygesGame, GygesState
from ringgames.records import Record, loads

from .helpers import START, random_states


def snapshot(s):
    return (s.position(), s.legal_actions(), list(s.history), s.outcome(), s.hash_key(), s.current_player())


def test_registry_and_game_description():
    g = load_game("gyges")
    assert isinstance(g, GygesGame) and isinstance(g.new_initial_state(), GygesState)
    assert g.seat_names == ("south", "north") and g.variants == ("standard", "beginner")
    assert load_game("gygès", "no-replace").variant == "beginner"
    assert g.num_distinct_actions == PASS + 1
    s, depth = g.perft_benchmark()
    assert (s.position(), depth) == (START, 2)


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), plies=st.integers(1, 120), variant=st.sampled_from(["standard", "beginner"]))
def test_apply_then_undo_restores_everything(seed, plies, variant):
    rng = random.Random(seed)
    s = load_game("gyges", variant).new_initial_state()
    trail = []
    while not s.is_terminal() and len(trail) < plies:
        trail.append(snapshot(s))
        s.apply_action(rng.choice(s.legal_actions()))
    while trail:
        s.undo_action()
        assert snapshot(s) == trail.pop()
    assert s.position() == "000000/000000/000000/000000/000000/000000 S" and s.history == []


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_hash_key_is_a_function_of_the_position(seed):
    rng = random.Random(seed)
    g = load_game("gyges")
    s = g.state_from_position(START)
    for _ in range(rng.randrange(1, 40)):
        if s.is_terminal():
            break
        s.apply_action(rng.choice(s.legal_actions()))
        assert s.hash_key() == g.state_from_position(s.position()).hash_key()


def test_clone_is_independent():
    for s in random_states(31, 10):
        before = snapshot(s)
        c = s.clone()
        c.apply_action(c.legal_actions()[0])
        assert snapshot(s) == before and snapshot(c) != before
        c.undo_action()
        assert snapshot(c) == before


def test_serialize_round_trip():
    for s in random_states(32, 8) + random_states(33, 4, "beginner"):
        t = deserialize_state(s.serialize())
        assert snapshot(t) == snapshot(s) and t.game == s.game
    s = load_game("gyges").state_from_position(START)
    s.play("c1-c2")
    s.play("c6-c5")
    t = deserialize_state(s.serialize())
    assert t._start_position() == START and snapshot(t) == snapshot(s)


def test_goal_win():
    g = load_game("gyges")
    s = g.state_from_position("000000/000000/000000/000000/321123/321123 S")
    s.play("c5-c6-G")
    assert s.outcome() == Outcome((0,), "goal")
    assert s.current_player() == TERMINAL and s.legal_actions() == [] and s.returns() == [1.0, -1.0]
    s.undo_action()
    assert s.outcome() is None and s.current_player() == 0
    # North wins into South's goal, from row 1
    n = g.state_from_position("321123/321123/000000/000000/000000/000000 N")
    wins = sorted(n.action_to_string(a) for a in n.legal_actions() if a != PASS and n.action_to_string(a).endswith("-G"))
    assert wins == ["c2-c1-G", "d2-d1-G"]
    n.play("d2-d1-G")
    assert n.result_string() == "north" and n.outcome().reason == "goal"


def test_own_goal_is_never_entered():
    # South on row 6 bouncing on row 1? Never: South's 1-pieces on row 1 cannot step into South's goal
    s = load_game("gyges").state_from_position("321123/321123/000000/000000/000000/000000 S")
    assert not any(s.action_to_string(a).endswith("-G") for a in s.legal_actions())


REP = "100000/000000/122330/122330/000000/000001 S"


def test_threefold_repetition_is_a_draw():
    s = load_game("gyges").state_from_position(REP)
    cycle = ["a1-a2", "f6-f5", "a2-a1", "f5-f6"]
    for i, m in enumerate(cycle * 2):
        assert s.outcome() is None, (i, s.position())
        s.play(m)
    # the start position has now occurred three times (the start counts)
    assert s.position() == REP and s.outcome() == Outcome((), "repetition")
    assert s.result_string() == "draw" and s.legal_actions() == [] and s.current_player() == TERMINAL
    s.undo_action()
    assert s.outcome() is None
    # perft ignores repetition
    s.play("f5-f6")
    assert s.perft(1) == load_game("gyges").state_from_position(REP).perft(1) > 0


def test_positions_during_setup_do_not_count_for_repetition():
    s = load_game("gyges").new_initial_state()
    s.play("321123")
    s.play("321123")
    assert s.repetition_count() == 1  # only the position after setup counts
    s.undo_action()
    assert s.repetition_count() == 0
    # a position reached again during play counts each time
    s = load_game("gyges").state_from_position(REP)
    for m in ("a1-a2", "f6-f5", "a2-a1"):
        s.play(m)
        assert s.repetition_count() == 1
    s.play("f5-f6")
    assert s.position() == REP and s.repetition_count() == 2 and s.outcome() is None


def test_beginner_pass(monkeypatch):
    # A pass position cannot be built on a real board (a piece beside the large empty area can always
    # end a move), so the generator is made to find nothing.
    import ringgames.games.gyges.kernel as K
    import ringgames.games.gyges.state as gs

    def no_move(s, out):
        # what the kernel writes when move_targets finds nothing (checked below)
        out[0] = PASS
        return 1

    s = load_game("gyges", "beginner").state_from_position(REP)
    monkeypatch.setattr(gs, "_legal_kernel", no_move)
    assert s.legal_actions() == [PASS]
    assert s.action_to_string(PASS) == "pass" and s.string_to_action("PASS") == PASS
    s.play("pass")
    assert s.position() == REP[:-1] + "N" and s.current_player() == 1
    for _ in range(3):
        s.play("pass")
    # passing forever ends by repetition: REP with South to move has now occurred three times
    assert s.outcome() == Outcome((), "repetition") and len(s.history) == 4
    s.undo_action()
    assert s.position() == REP[:-1] + "N" and s.outcome() is None
    # the kernel's own pass: generate() writes PASS alone when move_targets finds no piece
    # that can move; with a 3-ring piece on every square no first step exists (not a real position)
    arr = K.new_state(False)
    arr[:36] = 3
    arr[K.PHASE] = K.PLAY
    out = np.empty(K.MAX_LEGAL, dtype=np.int32)
    assert K.generate(arr, out, *K.workspace()) == 1 and out[0] == PASS


def test_pass_is_refused_while_a_move_exists():
    s = load_game("gyges", "beginner").state_from_position(START)
    assert PASS not in s.legal_actions()
    try:
        s.play("pass")
    except IllegalActionError as exc:
        assert "has a legal move" in str(exc)
    else:
        raise AssertionError("pass accepted")


def test_resign_and_agreed_draw():
    s = load_game("gyges").state_from_position(START)
    s.play("c1-c2")
    s.resign()
    assert s.outcome() == Outcome((0,), "resign") and s.current_player() == TERMINAL
    s.undo_action()
    s.agree_draw()
    assert s.result_string() == "draw" and s.outcome().reason == "agreement"


def test_record_round_trip_writes_the_setup_as_arrangements():
    rng = random.Random(5)
    g = load_game("gyges")
    for variant in ("standard", "beginner"):
        s = load_game("gyges", variant).new_initial_state()
        s.play("321123")
        s.play("231132")
        for _ in range(30):
            if s.is_terminal():
                break
            s.apply_action(rng.choice(s.legal_actions()))
        text = Record.from_state(s, {"South": "alice", "North": "bob"}).dumps()
        lines = [x for x in text.splitlines() if x and not x.startswith("[")]
        assert lines[0] == "1. 321123" and lines[1] == "2. 231132"
        assert len(lines) == len(s.history) and all(len(x.split()) == 2 for x in lines)
        t = loads(text)[0].replay()
        assert snapshot(t) == snapshot(s) and t.game.variant == variant
    # a finished game from a position
    s = g.state_from_position("000000/000000/000000/000000/321123/321123 S")
    s.play("d5-d6-G")
    text = Record.from_state(s).dumps()
    assert '[Position "000000/000000/000000/000000/321123/321123 S"]' in text
    assert '[Result "south"]' in text and '[Termination "goal"]' in text and "1. d5-d6-G" in text
    assert snapshot(loads(text)[0].replay()) == snapshot(s)


def test_record_accepts_non_canonical_moves_and_reports_bad_ones():
    text = '[Game "gyges"]\n\n1. 321123\n2. 321123\n3. C1-B1-C2\n4. c6-c4\n'
    try:
        loads(text)[0].replay()
    except ringgames.records.RecordError as exc:
        assert "turn 4" in str(exc) and "no legal path c6-c4" in str(exc)
    else:
        raise AssertionError("bad record accepted")
    s = loads(text.replace("4. c6-c4\n", ""))[0].replay()
    assert s.action_strings() == ["321123", "321123", "c1-c2"]


def test_render_draws_both_goals_and_the_board():
    s = load_game("gyges").state_from_position("202110/000330/000000/000200/000100/030123 N")
    r = s.render()
    lines = r.splitlines()
    assert "North's goal" in lines[0] and "South's goal" in lines[-2]
    assert lines[2] == "6  .  3  .  1  2  3  6" and lines[7] == "1  2  .  2  1  1  .  1"
    assert lines[-1] == "North to move, movable row 6"
    assert "to place a set on row 1" in load_game("gyges").new_initial_state().render()


def test_input_choices_step_by_step():
    s = load_game("gyges").state_from_position(START)
    c1 = s.input_choices("c1")
    assert len(c1) == sum(1 for a in s.legal_actions() if s.action_to_string(a).startswith("c1")) and len(c1) > 6
    assert s.input_choices("c1-b1(") == [x for x in c1 if x.startswith("c1-b1(")]
    assert c1[:6] == ["c1-b1-a2", "c1-c2", "c1-d1-d2", "c1-d1-e1-f2", "c1-b1-b3", "c1-d1-e1-e3"]  # plain moves first
    assert s.input_choices("c1-b1-c2") == ["c1-c2"]  # a non-canonical landing sequence
    assert s.input_choices("c1-c3") == [] and s.input_choices("a6") == [] and s.input_choices("zz") == []
