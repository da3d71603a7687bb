"""Fuzz tests of the YINSH readers: any text gives a value or a NotationError, never another exception."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ringgames import load_game
from ringgames.games.yinsh.notation import parse_action_text, parse_point
from ringgames.protocol import IllegalActionError, NotationError
from ringgames.records import RecordError, loads
from tests.fuzz_helpers import FUZZ, arbitrary_text, expect, mutated, random_states, single_edits

STATES = random_states("yinsh", 160, seed=3) + random_states("yinsh", 40, seed=4, variant="blitz")
POSITIONS = sorted({s.position() for s in STATES})
ACTIONS = sorted({s.action_to_string(a) for s in STATES for a in s.legal_actions()[:6]} | {"pass", "xg5-g9", "xa5"})
PICKED = [STATES[i] for i in (0, 5, 12, 40, 80, 120, 159)]  # placement, moves, later; rows where the game had them
PICKED += [s for s in STATES if s.phase in ("row", "ring")][:3]


def test_the_seed_states_cover_the_phases():
    assert {s.phase for s in STATES} >= {"place", "move"}
    assert len(POSITIONS) > 100 and len(ACTIONS) > 50


@pytest.mark.parametrize("variant", ["standard", "blitz"])
@FUZZ
@given(text=mutated(POSITIONS) | arbitrary_text())
def test_state_from_position_gives_a_state_or_a_notation_error(variant, text):
    g = load_game("yinsh", variant)
    s = expect(lambda: g.state_from_position(text), NotationError)
    if s is not None:  # what was read is written back as the same position
        assert g.state_from_position(s.position()).position() == s.position()


@FUZZ
@given(text=arbitrary_text(40) | mutated(ACTIONS), k=st.integers(0, len(PICKED) - 1))
def test_string_to_action_gives_an_action_or_a_rules_error(text, k):
    s = PICKED[k]
    a = expect(lambda: s.string_to_action(text), NotationError, IllegalActionError)
    if a is not None:
        assert a in s.legal_actions()


@FUZZ
@given(text=arbitrary_text(40) | mutated(ACTIONS))
def test_action_and_point_readers_give_a_value_or_a_notation_error(text):
    expect(lambda: parse_action_text(text), NotationError)
    expect(lambda: parse_point(text), NotationError)


GIPF = ["1.e3 2.a5 3.b5 4.c6 5.d6 6.e4 7.h7 8.g2 9.g3 10.g8 11.h7-g7 12.a5-a4", '[Variant "blitz"]\n1.e3 2.a5']


@FUZZ
@given(text=mutated(GIPF))
def test_gipf_reader_gives_records_or_a_record_error(text):
    recs = expect(lambda: loads(text, "g.txt"), RecordError)
    for r in recs or []:
        expect(r.replay, RecordError)


def test_every_single_edit_of_a_position_is_read_or_refused():
    g = load_game("yinsh")
    seeds = [POSITIONS[0], POSITIONS[len(POSITIONS) // 2], POSITIONS[-1]]
    read = refused = 0
    for seed in seeds:
        for text in single_edits(seed):
            if expect(lambda text=text: g.state_from_position(text), NotationError) is None:
                refused += 1
            else:
                read += 1
    assert read > 0 and refused > 0


def test_every_single_edit_of_an_action_is_read_or_refused():
    for s in PICKED:
        for seed in ["e3", "h7-g7", "xg5-g9", "xa5", "pass"]:
            for text in single_edits(seed):
                expect(lambda s=s, text=text: s.string_to_action(text), NotationError, IllegalActionError)
