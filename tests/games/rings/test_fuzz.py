"""Fuzz tests of the RINGS readers: any text gives a value or a NotationError, never another exception."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from ringgames import load_game
from ringgames.games.rings.notation import parse_action
from ringgames.protocol import IllegalActionError, NotationError
from tests.fuzz_helpers import DIGITS, FUZZ, arbitrary_text, expect, mutated, random_states, single_edits

STATES = {n: random_states("rings", 300, seed=n, players=n)[::5] for n in range(2, 7)}
POSITIONS = sorted({s.position() for states in STATES.values() for s in states})
ACTIONS = sorted({s.action_to_string(a) for ss in STATES.values() for s in ss for a in s.legal_actions()[-6:]})
PICKED = [ss[i] for ss in STATES.values() for i in (0, 30, 59)]
PICKED += [s for ss in STATES.values() for s in ss if s.phase() != "place"][:5]


def test_the_seed_states_cover_placing_and_converting():
    assert {s.phase() for ss in STATES.values() for s in ss} >= {"place", "convert"}
    assert any(a.startswith("x") for a in ACTIONS)


@FUZZ
@given(text=mutated(POSITIONS) | arbitrary_text(), players=st.integers(2, 6))
def test_state_from_position_gives_a_state_or_a_notation_error(text, players):
    g = load_game("rings", players=players)
    s = expect(lambda: g.state_from_position(text), NotationError)
    if s is not None:
        assert g.state_from_position(s.position()).position() == s.position()


@FUZZ
@given(text=arbitrary_text(40) | mutated(ACTIONS), k=st.integers(0, len(PICKED) - 1))
def test_string_to_action_gives_an_action_or_a_rules_error(text, k):
    s = PICKED[k]
    a = expect(lambda: s.string_to_action(text), NotationError, IllegalActionError)
    if a is not None:
        assert a in s.legal_actions()
    expect(lambda: parse_action(text), NotationError)


def test_every_single_edit_of_a_position_is_read_or_refused():
    read = refused = 0
    pieces = [*DIGITS, "/", " ", ".", "x", "r", "-", "\u0130"]  # positions are long: the pieces that matter here
    for n in (3,):
        seed, g = STATES[n][-1].position(), load_game("rings", players=n)
        for text in single_edits(seed, pieces):
            if expect(lambda g=g, text=text: g.state_from_position(text), NotationError) is None:
                refused += 1
            else:
                read += 1
    assert read > 0 and refused > 0


def test_every_single_edit_of_an_action_is_read_or_refused():
    for s in PICKED:
        for seed in ["K12", "xLM12", "pass", "end"]:
            for text in single_edits(seed):
                expect(lambda s=s, text=text: s.string_to_action(text), NotationError, IllegalActionError)
