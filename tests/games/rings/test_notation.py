"""Actions, notation, position strings, serialisation and .rgn records."""

import random

import pytest

import ringgames
from ringgames import NotationError, load_game
from ringgames.games.rings.notation import CONVERT0, END, NUM_ACTIONS, PASS, action_to_string, parse_action
from ringgames.records import Record, loads

from .helpers import make, random_state

EMPTY2 = "2/4/6/8/10/12/12/12/12/12/12/12/12/12/12/12/12/12/10/8/6/4/2 r place 0 -"


def test_game_description():
    g = load_game("rings", players=6)
    assert g.seat_names == ("red", "blue", "green", "yellow", "purple", "orange")
    assert g.num_distinct_actions == NUM_ACTIONS == 309
    assert load_game("rings").num_players == 2
    with pytest.raises(ValueError):
        load_game("rings", players=7)
    with pytest.raises(ValueError):
        load_game("rings", players=1)


def test_action_strings():
    assert action_to_string(0) == "L1" and action_to_string(PASS) == "pass" and action_to_string(END) == "end"
    assert action_to_string(CONVERT0) == "xLM2"
    for a in range(NUM_ACTIONS):
        s = action_to_string(a)
        assert parse_action(s) == a and parse_action(s.lower()) == a and parse_action(s.upper()) == a
    assert parse_action(" k12 ") == parse_action("K12")


@pytest.mark.parametrize(
    "text, why",
    [("", "empty"), ("Z3", "not a RINGS action"), ("xAB1", "no circle"), ("LM12", "write xLM12"), ("L2", "not a RINGS action")],
)
def test_bad_actions(text, why):
    with pytest.raises(NotationError, match=why):
        parse_action(text)


def test_empty_position():
    s = load_game("rings", players=2).new_initial_state()
    assert s.position() == EMPTY2
    t = load_game("rings", players=2).state_from_position(EMPTY2.replace("2 r", "2 R"))
    assert t.position() == EMPTY2 and t.legal_actions() == s.legal_actions()


def test_position_round_trip_random_games():
    rng = random.Random(5)
    for players in range(2, 7):
        g = load_game("rings", players=players)
        for plies in (0, 30, 150, 400, 2000):
            s = random_state(players, rng, plies)
            if rng.random() < 0.3 and len(s.active_players()) > 2 and not s.is_terminal():
                s.resign(rng.choice(s.active_players()))
            t = g.state_from_position(s.position())
            assert t.position() == s.position()
            assert t.legal_actions() == s.legal_actions()
            assert t.scores() == s.scores() and t.outcome() == s.outcome()
            assert t.current_player() == s.current_player()


@pytest.mark.parametrize(
    "text, why",
    [
        ("2/4 r place 0 -", "23 rows"),
        (EMPTY2 + " extra", "5 fields"),
        (EMPTY2.replace("2/4/", "3/4/", 1), "row 1 has 2 points"),
        (EMPTY2.replace("2/4/", "rq/4/", 1), "unexpected character 'q'"),
        (EMPTY2.replace("2/4/", "g1/4/", 1), "no seat of a 2-player"),
        (EMPTY2.replace(" r place", " g place"), "not a seat letter"),
        (EMPTY2.replace("place", "move"), "phase"),
        (EMPTY2.replace("place 0", "place z"), "whole number"),
        (EMPTY2.replace("place 0", "place 3"), "more than the 2 players"),
        (EMPTY2.replace("place", "convert"), "no legal conversion"),
        (EMPTY2.replace("2/4/", "x1/4/", 1), "nobody"),
        (EMPTY2.replace("0 -", "0 rr"), "twice"),
        (EMPTY2.replace("0 -", "0 rb"), "at least one must remain"),
        (EMPTY2.replace("2/4/", "b1/4/", 1).replace("0 -", "0 b"), "still has stones"),
    ],
)
def test_bad_positions(text, why):
    with pytest.raises(NotationError, match=why):
        load_game("rings", players=2).state_from_position(text)


def test_start_position_is_remembered():
    s = make(2, {0: "L11 M11 N12 M13", 1: "L13"})
    start = s.position()
    s.play("K12")
    s.play("xLM12")
    d = ringgames.deserialize_state(s.serialize())
    assert d.position() == s.position() and d.history == s.history
    assert d._start_position() == start


def test_serialize_round_trip_with_resignations():
    rng = random.Random(11)
    for players in (2, 3, 5):
        s = random_state(players, rng, 120)
        if players > 2:
            s.resign(s.active_players()[-1])
        for _ in range(40):
            if s.is_terminal():
                break
            s.apply_action(rng.choice(s.legal_actions()))
        d = ringgames.deserialize_state(s.serialize())
        assert d.position() == s.position() and d.history == s.history
        assert d.action_strings() == s.action_strings()


def test_serialize_from_position_with_resigned_player():
    g = load_game("rings", players=3)
    s = g.state_from_position("x1/4/6/8/10/12/12/12/12/12/12/12/12/12/12/12/12/12/10/8/6/4/2 g place 0 b")
    assert s.active_players() == [0, 2]
    s.play("K12")
    s.resign()  # red resigns now: green is left
    assert s.outcome().winners == (2,)
    d = ringgames.deserialize_state(s.serialize())
    assert d.position() == s.position() and d.outcome() == s.outcome()
    rec = Record.from_state(s)
    assert loads(rec.dumps())[0].replay().position() == s.position()


def test_record_round_trip_random_games():
    rng = random.Random(3)
    for players in (2, 3, 4, 6):
        s = random_state(players, rng, 100_000)
        assert s.is_terminal()
        text = Record.from_state(s).dumps()
        assert "end" not in text.split()
        r = loads(text)[0].replay()
        assert r.position() == s.position()
        assert r.summary() == s.summary() and r.result_string() == s.result_string()


def test_record_line_implies_end():
    # red: pass, converts LM12 (LM14 would still be legal): the line ends the turn.
    start = make(2, {0: "L11 M11 N12 M13 L13 N14", 1: "K12 M15"}).position()
    text = f'[Game "rings"]\n[Players "2"]\n[Position "{start}"]\n\n1. pass xLM12\n2. A11\n3. K14 xLM14\n'
    s = loads(text)[0].replay()
    assert s.action_strings() == ["pass", "xLM12", "end", "A11", "K14", "xLM14"]
    assert s.current_player() == 1
    again = Record.from_state(s).dumps()
    assert "1. pass xLM12\n2. A11\n3. K14 xLM14\n" in again
    assert loads(again)[0].replay().position() == s.position()


def test_record_header_and_summary():
    s = load_game("rings", players=3).new_initial_state()
    for t in ["K12", "pass", "pass", "pass"]:
        s.play(t)
    rec = Record.from_state(s, {"Red": "ann"})
    text = rec.dumps()
    assert '[Players "3"]' in text and '[Result "draw"]' in text and '[Termination "passes"]' in text
    assert loads(text)[0].replay().summary() == {"scores": [0, 0, 0], "winners": [0, 1, 2]}


def _mid_turn_start():
    # red can convert LM12 and then LM14 (chain); blue holds K12 and M15, green A11
    return make(3, {0: "L11 M11 N12 M13 L13 N14", 1: "K12 M15", 2: "A11"})


def _round_trip(s):
    text = Record.from_state(s).dumps()
    r = loads(text)[0].replay()
    assert r.position() == s.position() and r.action_strings() == s.action_strings()
    return text


def test_record_with_resignation_inside_a_turn():
    # green resigns while red is converting; red goes on converting afterwards
    s = _mid_turn_start()
    for t in ["pass", "xLM12"]:
        s.play(t)
    s.resign(2)
    assert s.current_player() == 0 and s.legal_actions()[-1] == END
    s.play("xLM14")
    text = _round_trip(s)
    assert "1. pass xLM12\n2. resign green\n3. xLM14\n" in text


def test_record_with_resignation_after_an_explicit_end():
    s = _mid_turn_start()
    for t in ["pass", "xLM12", "end"]:
        s.play(t)
    s.resign(2)
    s.play("B12")
    text = _round_trip(s)
    assert "1. pass xLM12 end\n2. resign green\n3. B12\n" in text


def test_record_with_mover_resigning_inside_own_turn_and_draw():
    s = _mid_turn_start()
    s.play("pass")
    s.resign()
    assert s.current_player() == 1
    _round_trip(s)
    t = _mid_turn_start()
    t.play("pass")
    t.agree_draw()
    assert "1. pass\n2. draw\n" in _round_trip(t)


def test_record_with_end_after_another_players_resignation():
    s = _mid_turn_start()
    for t in ["pass", "xLM12"]:
        s.play(t)
    s.resign(2)
    s.play("end")
    s.play("B12")
    text = _round_trip(s)
    assert "1. pass xLM12\n2. resign green\n3. end\n4. B12\n" in text


def test_a_pass_count_too_large_is_called_too_large():
    from ringgames import NotationError, load_game

    g = load_game("rings")
    fields = g.new_initial_state().position().split()
    for value, words in (("99999999999999999999", "is too large"), ("x1", "is not a whole number"), ("²", "only ASCII")):
        fields[3] = value
        with pytest.raises(NotationError, match=words):
            g.state_from_position(" ".join(fields))
