"""YINSH rules on hand-made positions (shared/rules/yinsh.md, sections Play and End of game)."""

import pytest

from ringgames import IllegalActionError, NotationError, load_game
from ringgames.games.yinsh.state import PASS

from .helpers import BR, WR, B, W, moves_from, position, state

# Five rings each, far from the action, used as padding.
PAD_W = "k7 k8"
PAD_B = "j11 i11 h11"


def test_ring_move_slides_jumps_one_group_and_stops():
    s = state({"e5 " + PAD_W + " a2 b1": WR, "e7 " + PAD_B + " a5": BR, "f5 g5 e2 e1": W})
    # up: e6 then a ring at e7; right: jump f5 g5 and stop on h5; down: e4 e3, then the group e2 e1
    # runs to the edge; left: d5 c5 b5 (a5 is a ring); diagonal up: f6..; diagonal down: d4 c3 b2.
    got = moves_from(s, "e5")
    assert {"e6", "h5", "e4", "e3", "d5", "c5", "b5", "d4", "c3", "b2"} <= got
    assert not {"e8", "i5", "e1", "e2", "a5", "g5", "f5"} & got
    assert {"f6", "g7", "h8", "i9", "j10"} <= got and "k11" not in got  # k11 is not a point
    # the (1, -1) diagonal is not a line
    assert "f4" not in got and "d6" not in got


def test_move_places_marker_and_flips_jumped_markers():
    s = state({"e5 " + PAD_W + " a2 b1": WR, "e7 " + PAD_B + " a5": BR, "f5": W, "g5": B})
    s.play("e5-h5")
    pos = s.position()
    s2 = state({"h5 " + PAD_W + " a2 b1": WR, "e7 " + PAD_B + " a5": BR, "g5 e5": W, "f5": B}, actor="b")
    assert pos == s2.position()
    assert s.pool == 51 - 3


def row_position(**kw):
    # White markers e1..e4 and e6; white ring on e5 leaves a marker there when it moves to f5.
    return state({"e5 " + PAD_W + " a2 b1": WR, PAD_B + " a5 j5": BR, "e1 e2 e3 e4 e6": W}, **kw)


def test_six_in_a_line_lets_the_player_choose_the_window():
    s = row_position()
    s.play("e5-f5")
    assert s.current_player() == 0 and s.phase == "row"
    assert sorted(s.action_to_string(a) for a in s.legal_actions()) == ["xe1-e5", "xe2-e6"]
    s.play("xe6-e2")  # readers accept either order
    assert s.phase == "ring"
    # the ring moved to f5 and the row e2..e6 went back to the pool: only e1's marker is left, and
    # White (the row's owner, still the mover) removes a ring next
    after = position({"f5 " + PAD_W + " a2 b1": WR, PAD_B + " a5 j5": BR, "e1": W}, phase="ring", mover="w")
    assert s.position() == after
    assert s.board[s._parse_action("e1") - 0] == W  # e1 stays, e2..e6 removed
    s.play("xa2")
    assert s.removed == [1, 0] and s.current_player() == 1 and s.phase == "move"
    assert s.pool == 51 - 1  # six markers on the board before, five went back


def test_intersecting_rows_one_choice_breaks_the_other():
    s = state({"e5 " + PAD_W + " a2 b1": WR, PAD_B + " a5 j5": BR, "e1 e2 e3 e4 c3 d4 f6 g7": W})
    s.play("e5-f5")
    assert sorted(s.action_to_string(a) for a in s.legal_actions()) == ["xc3-g7", "xe1-e5"]
    s.play("xc3-g7")
    s.play("xk8")
    assert s.current_player() == 1 and s.phase == "move"  # the column row is broken at e5


def both_rows(removed=(0, 0), variant="standard"):
    # White ring e7 -> g7 jumps f7 (white -> black): black gets f3..f7, white's marker on e7 makes e3..e7.
    white = " ".join(["e7", "a2", "k7", "k8", "b1"][: 5 - removed[0]])
    black = " ".join(["a5", "j5", "j11", "i11", "h11"][: 5 - removed[1]])
    return state({white: WR, black: BR, "e3 e4 e5 e6 f7": W, "f3 f4 f5 f6": B}, removed=removed, variant=variant)


def test_mover_resolves_own_rows_first_then_the_opponent_before_moving():
    s = both_rows()
    s.play("e7-g7")
    assert (s.current_player(), s.phase) == (0, "row")
    assert [s.action_to_string(a) for a in s.legal_actions()] == ["xe3-e7"]
    s.play("xe3-e7")
    s.play("xa2")
    assert (s.current_player(), s.phase) == (1, "row")
    assert [s.action_to_string(a) for a in s.legal_actions()] == ["xf3-f7"]
    s.play("xf3-f7")
    s.play("xa5")
    assert (s.current_player(), s.phase) == (1, "move")
    assert s.removed == [1, 1]


def test_move_completing_both_final_rows_wins_for_the_mover():
    s = both_rows(removed=(2, 2))
    s.play("e7-g7")
    s.play("xe3-e7")
    s.play("xk7")
    assert s.is_terminal() and s.outcome().winners == (0,) and s.outcome().reason == "rings"
    assert s.result_string() == "white" and s.returns() == [1.0, -1.0]
    assert s.legal_actions() == [] and s.current_player() < 0


def test_move_completing_only_the_opponents_final_row_makes_the_opponent_win():
    s = state({"e7 " + PAD_W + " a2 b1": WR, "a5 j5 j11": BR, "f7": W, "f3 f4 f5 f6": B}, removed=(0, 2))
    s.play("e7-g7")
    assert (s.current_player(), s.phase) == (1, "row")
    s.play("xf3-f7")
    s.play("xj5")
    assert s.outcome().winners == (1,) and s.result_string() == "black"


def test_blitz_is_won_by_the_first_ring():
    s = both_rows(variant="blitz")
    s.play("e7-g7")
    s.play("xe3-e7")
    s.play("xa2")
    assert s.is_terminal() and s.outcome().winners == (0,)


def blocked(passes=0, removed=(0, 1)):
    # Black rings fill column A and white rings fill b2..b6: no black ring can move.
    if removed[0] == 0:
        return state({"b2 b3 b4 b5 b6": WR, "a2 a3 a4 a5": BR}, actor="b", removed=removed, passes=passes)
    # one white ring fewer: a5's diagonal is blocked by a marker group that runs to the edge
    return state({"b2 b3 b4 b5": WR, "a2 a3 a4 a5": BR, "b6 d8 f10": W, "c7 e9 g11": B},
                 actor="b", removed=removed, passes=passes)


def test_blocked_player_passes_and_play_goes_on():
    s = blocked()
    assert s.legal_actions() == [PASS]
    s.play("pass")
    assert s.current_player() == 0 and s.phase == "move" and not s.is_terminal()
    assert s.pool == 51  # a pass places no marker
    with pytest.raises(IllegalActionError):
        s.play("pass")  # White can move, so White cannot pass


def test_second_consecutive_pass_ends_the_game():
    s = blocked(passes=1, removed=(0, 1))
    s.play("pass")
    assert s.outcome().reason == "blocked" and s.result_string() == "black"
    s = blocked(passes=1, removed=(1, 1))
    s.play("pass")
    assert s.outcome().reason == "blocked" and s.result_string() == "draw" and s.returns() == [0.0, 0.0]


def test_empty_pool_ends_the_game_unless_the_last_marker_made_a_row():
    # 51 markers would be needed for a real exhaustion; random games reach it (see test_random_games),
    # here the position string fixes the pool directly: 50 markers on board, White moves the 51st.
    markers = [n for n in "c1 c2 c3 c4 c5 c6 c7 c8 d1 d2 d3 d4 d5 d6 d7 d8 d9 g2 g3 g4 g5 g6 g7 g8 g9 g10 g11 h3 h4 h5 h6 h7 h8 h9 h10 h11 i4 i5 i6 i7 i8 i9 i10 i11".split()]
    # alternate colours along each column so that no five in a line are one colour
    pieces = {}
    for i, n in enumerate(markers):
        pieces.setdefault(W if (i // 2) % 2 else B, []).append(n)
    pieces[W] += ["j5", "j6", "k7"]
    pieces[B] += ["j7", "j8", "k9"]
    assert len(pieces[W]) + len(pieces[B]) == 50
    s = state({" ".join(pieces[W]): W, " ".join(pieces[B]): B, "e5 e6 e7 f2 f3": WR, "f8 f9 f10 a2 a3": BR})
    assert s.pool == 1
    rows_before = s._scan_rows(0) + s._scan_rows(1)
    assert rows_before == []
    s.play("f3-f7")
    assert s.pool == 0
    if s.phase == "row":  # a row made with the last marker returns 5 and play goes on
        pytest.fail("unexpected row in this construction")
    assert s.is_terminal() and s.outcome().reason == "markers" and s.result_string() == "draw"


def test_resignation_and_agreed_draw_are_undoable():
    s = load_game("yinsh").new_initial_state()
    s.play("e3")
    s.resign()
    assert s.result_string() == "white" and s.outcome().reason == "resign"
    s.undo_action()
    assert not s.is_terminal() and s.current_player() == 1
    s.agree_draw()
    assert s.result_string() == "draw"
    s.undo_action()
    assert s.legal_actions()


def test_bad_notation_and_illegal_actions_say_what_is_wrong():
    s = load_game("yinsh").new_initial_state()
    with pytest.raises(NotationError, match="not a point"):
        s.play("a1")
    with pytest.raises(NotationError, match="not a YINSH action"):
        s.play("hello")
    s.play("e3")
    with pytest.raises(IllegalActionError) as exc:
        s.play("e3")
    assert "e4" in exc.value.legal and "e3" not in exc.value.legal
    assert s.position().count("W") == 1  # nothing changed


@pytest.mark.parametrize(
    "text,msg",
    [
        ("4/7/8/9/10/9/10/9/8/7 w place 0:0 - 0", "11 columns"),
        ("4/7/8/9/10/9/10/9/8/7/5 w place 0:0 - 0", "column K"),
        ("4/7/8/9/10/9/10/9/8/7/4 x place 0:0 - 0", "'w' or 'b'"),
        ("4/7/8/9/10/9/10/9/8/7/4 w dance 0:0 - 0", "phase"),
        ("4/7/8/9/10/9/10/9/8/7/4 w move 0:0 - 0", "before all rings"),
        ("4/7/8/9/10/9/10/9/8/7/3Q w place 0:0 - 0", "unknown piece"),
    ],
)
def test_bad_position_strings_are_rejected_with_the_reason(text, msg):
    with pytest.raises(NotationError, match=msg):
        load_game("yinsh").state_from_position(text)
