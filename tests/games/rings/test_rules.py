"""The rules: every worked example of the spec, chains, multi-opponent conversion, passes, scores, resignation."""

import pytest

from ringgames import TERMINAL, IllegalActionError, load_game
from ringgames.games.rings.board import point_index
from ringgames.games.rings.notation import END, PASS

from .helpers import ci, conv, make, owners

RED, BLUE, GREEN = 0, 1, 2
CENTRE = "L11 M11 N12 M13 L13 K12"


def test_example_white_four_black_one():
    # White (red) 4, Black (blue) 1, one empty point; White places there, converts, forms a ring.
    s = make(2, {RED: "L11 M11 N12 M13", BLUE: "L13"})
    s.play("K12")
    assert s.current_player() == RED and s.phase() == "convert"
    assert s.influence(RED, ci("LM12")) == 5 and s.influence(BLUE, ci("LM12")) == 1
    assert s.legal_actions() == [conv("LM12"), END]
    s.play("xLM12")
    assert owners(s, CENTRE) == [RED] * 6
    assert s.ring_owner(ci("LM12")) == RED
    assert all(s.is_safe(point_index(p)) for p in CENTRE.split())
    assert s.current_player() == BLUE and s.phase() == "place"  # nothing else to convert: turn over


def test_example_black_three_white_one():
    # Black (blue) 3, White (red) 1, two empty; Black places on one: 4 > 1 + 1, converts: 5 + 1 empty.
    s = make(2, {BLUE: "L11 M11 N12", RED: "M13"}, mover=BLUE)
    assert s.majority(ci("LM12")) == -1  # 3 > 1 + 2 is false
    s.play("L13")
    assert s.legal_actions() == [conv("LM12"), END]
    s.play("xLM12")
    assert owners(s, CENTRE) == [BLUE] * 5 + [-1]
    assert s.ring_owner(ci("LM12")) == -1 and not s.is_safe(point_index("M13"))
    assert s.current_player() == RED


def test_example_neighbouring_ring_gives_majority():
    # 3 own stones + 3 empty: no majority; with an own ring next door: 4 > 3.
    ring_lm10 = "L9 M9 N10 M11 L11 K10"
    s = make(2, {RED: ring_lm10 + " N12"})
    assert s.ring_owner(ci("LM10")) == RED
    assert s.influence(RED, ci("LM12")) == 4
    assert s.majority(ci("LM12")) == RED
    t = make(2, {RED: "M9 N10 M11 L11 K10 N12"})  # L9 empty: no ring
    assert t.ring_owner(ci("LM10")) == -1
    assert t.influence(RED, ci("LM12")) == 3
    assert t.majority(ci("LM12")) == -1
    assert s.scores()[RED] > t.scores()[RED]


def test_example_ring_stones_stay():
    # Blue's ring LM10 holds L11 M11 on the centre circle; red (with rings LM14 and JK13) converts the centre:
    # N12 flips, L11 and M11 stay blue.
    s = make(
        2,
        {
            BLUE: "L9 M9 N10 M11 L11 K10 N12",
            RED: "L13 M13 N14 M15 L15 K14 J12 K12 J14 I13",
        },
    )
    assert s.ring_owner(ci("LM10")) == BLUE
    assert s.ring_owner(ci("LM14")) == RED and s.ring_owner(ci("JK13")) == RED
    assert s.influence(RED, ci("LM12")) == 5 and s.influence(BLUE, ci("LM12")) == 4
    s.play("pass")
    assert s.phase() == "pass-convert"
    assert conv("LM12") in s.legal_actions()
    s.play("xLM12")
    assert owners(s, "N12 L11 M11") == [RED, BLUE, BLUE]
    assert s.ring_owner(ci("LM10")) == BLUE


def test_multi_opponent_conversion():
    s = make(3, {RED: "L11 M11 N12 M13", BLUE: "L13", GREEN: "K12"})
    s.play("pass")
    s.play("xLM12")
    assert owners(s, CENTRE) == [RED] * 6 and s.ring_owner(ci("LM12")) == RED
    assert s.current_player() == BLUE


def test_no_conversion_without_opponent_stone_or_majority():
    s = make(2, {RED: "L11 M11 N12 M13 L13"})  # majority but nothing to convert
    assert s.majority(ci("LM12")) == RED
    s.play("pass")
    assert s.current_player() == BLUE and s.phase() == "place"  # the turn ended by itself
    t = make(2, {RED: "L11 M11 N12", BLUE: "M13"})  # 3 > 1 + 2 false
    t.play("pass")
    assert t.current_player() == BLUE


def test_chain_with_new_ring():
    # Converting LM12 makes it a red ring, which gives red majority on LM14 at once.
    s = make(2, {RED: "L11 M11 N12 M13 L13 N14", BLUE: "K12 M15"})
    assert s.majority(ci("LM14")) == -1
    s.play("pass")
    assert s.legal_actions() == [conv("LM12"), END]
    s.play("xLM12")
    assert s.ring_owner(ci("LM12")) == RED
    assert s.current_player() == RED
    assert s.legal_actions() == [conv("LM14"), END]
    s.play("xLM14")
    assert owners(s, "M15") == [RED]
    assert s.current_player() == BLUE


def test_stop_converting_with_end():
    s = make(2, {RED: "L11 M11 N12 M13 L13 N14", BLUE: "K12 M15"})
    s.play("pass")
    s.play("xLM12")
    s.play("end")
    assert s.current_player() == BLUE and owners(s, "M15") == [BLUE]


def test_conversion_only_after_placement_step():
    s = make(2, {RED: "L11 M11 N12 M13", BLUE: "L13"})  # red has majority on LM12 already (4 > 1 + 1)
    assert s.majority(ci("LM12")) == RED
    assert conv("LM12") not in s.legal_actions()
    with pytest.raises(IllegalActionError):
        s.play("xLM12")


def test_game_ends_after_n_passes():
    s = load_game("rings", players=3).new_initial_state()
    s.play("pass")
    s.play("pass")
    assert not s.is_terminal() and s.pass_count() == 2
    s.play("pass")
    assert s.is_terminal() and s.current_player() == TERMINAL and s.legal_actions() == []
    assert s.outcome().reason == "passes" and s.outcome().winners == (0, 1, 2)
    assert s.returns() == [0.0, 0.0, 0.0]


def test_placement_restarts_pass_count():
    s = load_game("rings", players=2).new_initial_state()
    s.play("pass")
    s.play("A11")
    assert s.pass_count() == 0
    s.play("pass")
    assert not s.is_terminal()
    s.play("pass")
    assert s.is_terminal()


def test_last_pass_turn_includes_its_conversions():
    # blue passed; red passes too but still converts: the game ends after the conversion.
    s = make(2, {RED: "L11 M11 N12 M13 L13", BLUE: "K12"}, passes=1)
    s.play("pass")
    assert not s.is_terminal() and s.current_player() == RED
    assert s.scores() == [1, 0]
    s.play("xLM12")
    assert s.is_terminal() and s.outcome().reason == "passes"
    assert owners(s, "K12") == [RED] and s.ring_owner(ci("LM12")) == RED
    assert s.summary() == {"scores": [1, 0], "winners": [RED]}
    # the same with "end" right after the pass: still a pass turn
    t = make(2, {RED: "L11 M11 N12 M13 L13", BLUE: "K12"}, passes=1)
    t.play("pass")
    t.play("end")
    assert t.is_terminal() and owners(t, "K12") == [BLUE]


def test_pass_turn_with_conversions_counts_as_pass():
    s = make(2, {RED: "L11 M11 N12 M13 L13", BLUE: "K12"})
    s.play("pass")
    s.play("xLM12")
    assert s.pass_count() == 1 and s.current_player() == BLUE


def test_tied_leaders_share_the_win():
    # red and blue each hold one circle, green none; three passes end it.
    s = make(3, {RED: "L11 M11 N12 M13", BLUE: "L3 M3 N4 M5"}, passes=0)
    assert s.scores() == [1, 1, 0]
    for _ in range(3):
        s.play("pass")
    assert s.outcome().winners == (RED, BLUE)
    assert s.returns() == [0.5, 0.5, -1.0]
    assert s.result_string() == "red+blue"


def test_full_board_only_pass():
    rows = [2, 4, 6, 8, 10] + [12] * 13 + [10, 8, 6, 4, 2]
    board = "/".join(("r" if i % 2 else "b") * k for i, k in enumerate(rows))
    s = load_game("rings", players=2).state_from_position(f"{board} r place 0 -")
    turns = 0
    while not s.is_terminal():
        if s.phase() == "place":
            assert s.legal_actions() == [PASS]
            s.play("pass")
            turns += 1
        else:
            s.convert_all()
        assert turns < 10
    assert s.outcome().reason == "passes" and turns >= 2
    assert s.outcome().winners == (RED,)  # red (rows 2, 4, ...) converts first and takes the board


# -- resignation ------------------------------------------------------------------
def test_resigned_stones_belong_to_nobody():
    s = make(3, {RED: "L11 M11 N12", BLUE: "L13 K12", GREEN: "A11"}, mover=RED)
    assert s.majority(ci("LM12")) == -1  # 3 > 2 + 1 is false
    s.resign(BLUE)
    assert owners(s, "L13 K12") == [3, 3]  # nobody
    assert s.active_players() == [RED, GREEN]
    assert s.influence(BLUE, ci("LM12")) == 0
    assert s.majority(ci("LM12")) == RED  # 3 > 0 + 1: blue's stones are occupied (not empty), without influence
    s.play("pass")
    assert conv("LM12") not in s.legal_actions() and s.current_player() == GREEN  # nobody's stones never convert
    assert s.scores()[BLUE] == 0


def test_resign_mover_passes_turn_and_restarts_pass_count():
    s = load_game("rings", players=3).new_initial_state()
    s.play("pass")
    assert s.pass_count() == 1 and s.current_player() == BLUE
    s.resign()
    assert s.current_player() == GREEN and s.pass_count() == 0
    s.play("pass")
    assert not s.is_terminal()
    s.play("pass")  # two passes = all remaining players
    assert s.is_terminal() and BLUE not in s.outcome().winners
    # undo everything back to the start
    s.undo_action()
    s.undo_action()
    s.undo_action()  # the resignation
    assert s.current_player() == BLUE and s.pass_count() == 1 and s.active_players() == [0, 1, 2]


def test_resign_two_players_other_wins():
    s = load_game("rings", players=2).new_initial_state()
    s.play("K12")
    s.resign()
    assert s.outcome().winners == (RED,) and s.outcome().reason == "resign"
    assert s.returns() == [1.0, -1.0]


def test_resign_during_convert_phase_of_other_player():
    s = make(3, {RED: "L11 M11 N12 M13 L13", BLUE: "K12"})
    s.play("pass")
    assert s.legal_actions() == [conv("LM12"), END]
    s.resign(BLUE)  # blue's stone becomes nobody's: red has nothing left to convert
    assert s.current_player() == GREEN and s.pass_count() == 1  # red's pass turn is complete
    pos = s.position()
    s.undo_action()
    assert s.current_player() == RED and s.legal_actions() == [conv("LM12"), END]
    assert owners(s, "K12") == [BLUE] and "x" in pos.split()[0] and "x" not in s.position().split()[0]


def test_outcome_with_resigned_player_excluded():
    s = make(3, {BLUE: "L11 M11 N12 M13"}, mover=RED)
    s.resign(BLUE)
    assert s.scores()[BLUE] == 0
    s.play("pass")
    s.play("pass")
    assert s.outcome().winners == (RED, GREEN)
    assert s.returns() == [0.5, -1.0, 0.5]


def test_clones_undo_a_resignation_independently():
    s = load_game("rings", players=3).new_initial_state()
    s.play("K12")
    s.resign(BLUE)
    c = s.clone()
    s.undo_action()
    c.undo_action()
    s.play("A11")
    assert c.owner(point_index("A11")) == -1 and s.owner(point_index("A11")) == BLUE
    assert c.current_player() == BLUE and c.legal_actions()[0] == 0
