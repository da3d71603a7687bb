"""Fuzz tests of the Gygès readers: any text gives a value or a NotationError, never another exception."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from ringgames import load_game
from ringgames.games.gyges.notation import parse_arrangement, parse_move_syntax, parse_position, parse_square
from ringgames.protocol import IllegalActionError, NotationError
from tests.fuzz_helpers import FUZZ, arbitrary_text, expect, mutated, random_states, single_edits

STATES = random_states("gyges", 160, seed=5) + random_states("gyges", 40, seed=6, variant="beginner")
POSITIONS = sorted({s.position() for s in STATES})
ACTIONS = sorted({s.action_to_string(a) for s in STATES for a in s.legal_actions()[:6]})
PICKED = [STATES[i] for i in (0, 1, 2, 10, 50, 100, 159, 160)]


def test_the_seed_states_cover_setup_and_play():
    assert len(POSITIONS) > 50 and any(a.isdigit() for a in ACTIONS) and any("-" in a for a in ACTIONS)


@FUZZ
@given(text=mutated(POSITIONS) | arbitrary_text())
def test_state_from_position_gives_a_state_or_a_notation_error(text):
    g = load_game("gyges")
    s = expect(lambda: g.state_from_position(text), NotationError)
    if s is not None:
        assert g.state_from_position(s.position()).position() == s.position()
    expect(lambda: parse_position(text), NotationError)


@FUZZ
@given(text=arbitrary_text(40) | mutated(ACTIONS), k=st.integers(0, len(PICKED) - 1))
def test_string_to_action_gives_an_action_or_a_rules_error(text, k):
    s = PICKED[k]
    a = expect(lambda: s.string_to_action(text), NotationError, IllegalActionError)
    if a is not None:
        assert a in s.legal_actions()


@FUZZ
@given(text=arbitrary_text(40) | mutated(ACTIONS))
def test_square_arrangement_and_move_readers_give_a_value_or_a_notation_error(text):
    expect(lambda: parse_square(text), NotationError)
    expect(lambda: parse_arrangement(text), NotationError)
    expect(lambda: parse_move_syntax(text), NotationError)


def test_every_single_edit_of_a_position_is_read_or_refused():
    g = load_game("gyges")
    read = refused = 0
    for seed in [POSITIONS[0], POSITIONS[len(POSITIONS) // 2], POSITIONS[-1]]:
        for text in single_edits(seed):
            if expect(lambda text=text: g.state_from_position(text), NotationError) is None:
                refused += 1
            else:
                read += 1
    assert read > 0 and refused > 0


def test_every_single_edit_of_an_action_is_read_or_refused():
    for s in PICKED[::2]:
        for seed in ["321123", "c1-c3", "c1-d2-d4(e5)", "b5-b6-G", "pass"]:
            for text in single_edits(seed):
                expect(lambda s=s, text=text: s.string_to_action(text), NotationError, IllegalActionError)
