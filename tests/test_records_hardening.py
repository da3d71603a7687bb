"""Records and parsers hardening (issue #34): tag values, SGF tokenizing, truncation, digits, rows, unfinished turns."""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from ringgames import load_game
from ringgames.cli import main
from ringgames.protocol import NotationError
from ringgames.records import Record, RecordError, load_file, loads

REAL = "yinsh/boardspace-2005/Y-player006-Dumbot-2005-07-27-2127.sgf"


# -- 1. .rgn tag values -------------------------------------------------------------------
@pytest.mark.parametrize(
    "name", ["a;b", 'say "hi"', "back\\slash", "x]y", "[z", "two\nlines", "cr\rlf", "tab\tbed", "end\\", "\u2028sep", ""]
)
def test_tag_values_round_trip_exactly(name):
    s = load_game("yinsh").new_initial_state()
    s.play("e3")
    rec = Record.from_state(s, {"White": name, "Black": "b;" + name})
    back = loads(rec.dumps())[0]
    assert back.tags["White"] == name
    assert back.tags["Black"] == "b;" + name
    assert back.replay().history == s.history


@settings(max_examples=300, derandomize=True, deadline=None)
@given(st.text(max_size=40))
def test_any_tag_value_round_trips(name):
    rec = Record("rings", {"Game": "rings", "Players": "3", "Red": name, "Event": name + ";x"}, [])
    back = loads(rec.dumps())
    assert len(back) == 1
    assert back[0].tags == rec.tags


def test_a_comment_after_a_tag_is_still_a_comment():
    rec = loads('[Game "yinsh"] ; a comment ] "\n[White "a;b"]   ;  another\n\n1. e3\n')[0]
    assert rec.tags == {"Game": "yinsh", "White": "a;b"}


def test_a_tag_name_that_cannot_be_read_back_is_refused_on_write():
    rec = Record("yinsh", {"Game": "yinsh", "Bad Key": "x"}, [])
    with pytest.raises(RecordError, match="Bad Key"):
        rec.dumps()


# -- 2. boardspace: a real SGF tokenizer ---------------------------------------------------
HEAD = '(;GM[24] VV[2] SU[yinsh] GN[x;y] P0[id "a;b"] P1[id "c\\]d"]\n; P0[0 Start White]\n'


def test_semicolon_and_escaped_bracket_inside_values_keep_their_data():
    rec = loads(HEAD + "; P0[1 place wr  E 3]\n; P1[2 place br  A 5]\n)", "s.sgf")[0]
    assert rec.tags["White"] == "a;b"
    assert rec.tags["Black"] == "c]d"
    assert rec.tags["Event"] == "x;y"
    assert [s for s in (rec.replay().action_to_string(a) for a in rec.replay().history)] == ["e3", "a5"]


def test_a_command_is_not_split_by_a_semicolon_in_a_comment_value():
    rec = loads(HEAD + "; P0[1 place wr  E 3] C[nice; P1[2 place br  A 5\\]]\n; P1[2 place br  B 5]\n)", "s.sgf")[0]
    st_ = rec.replay()
    assert [st_.action_to_string(a) for a in st_.history] == ["e3", "b5"]


# -- 3. truncated boardspace files, errors naming the bad node, bounded messages ---------
def _real_text(shared: Path) -> str:
    return (shared / "data" / REAL).read_text()


def test_a_file_cut_inside_its_last_node_is_an_error_naming_file_and_node(shared, tmp_path):
    text = _real_text(shared)
    last = text.rindex("; P")
    cut = tmp_path / "cut.sgf"
    cut.write_text(text[: last + 12])  # inside the last node's value
    nodes = text[:last].count("; P") + 1  # the header is node 0
    with pytest.raises(RecordError) as exc:
        load_file(cut)[0].replay()
    assert str(cut) in str(exc.value) and f"node {nodes}" in str(exc.value)
    r = CliRunner().invoke(main, ["replay", str(cut)])
    assert r.exit_code == 1 and "cut.sgf" in r.stderr


def test_a_file_without_its_closing_parenthesis_is_an_error(shared, tmp_path):
    text = _real_text(shared)
    cut = tmp_path / "open.sgf"
    cut.write_text(text[: text.rindex(")")])
    with pytest.raises(RecordError, match=r"open\.sgf.*(truncated|closing)"):
        load_file(cut)


def test_error_names_the_bad_node_of_a_merged_turn_not_its_first():
    text = HEAD + "; P0[1 place wr  E 3]\n; P1[2 place br  A 5]\n; P1[3 place br  B 5]\n)"
    with pytest.raises(RecordError) as exc:
        loads(text, "m.sgf")[0].replay()
    msg = str(exc.value)
    assert "node 4" in msg and "node 3" not in msg


def test_error_messages_quote_a_bounded_excerpt():
    text = HEAD + "; P0[1 place wr  E 3]\n" + "; P1[2 place br  A 5]\n" * 20000 + ")"
    with pytest.raises(RecordError) as exc:
        loads(text, "big.sgf")[0].replay()
    assert len(str(exc.value)) < 400, len(str(exc.value))
    with pytest.raises(RecordError) as exc:
        loads('[Game "yinsh"]\n\n1. ' + "e3 " * 100000 + "\n")[0].replay()
    assert len(str(exc.value)) < 400
    with pytest.raises(RecordError) as exc:
        loads('[Game "yinsh"]\n\n1. ' + "q" * 1_000_000 + "\n")[0].replay()
    assert len(str(exc.value)) < 400
    with pytest.raises(RecordError) as exc:
        loads(HEAD + "; P0[1 fly " + "x" * 1_000_000 + "]\n)", "u.sgf")
    assert len(str(exc.value)) < 400 and "\u2026" in str(exc.value)


# -- 4. digits in positions and notation --------------------------------------------------
YINSH_START = "4/7/8/9/10/9/10/9/8/7/4 w place 0:0 - 0"
RINGS_START = "2/4/6/8/10/12/12/12/12/12/12/12/12/12/12/12/12/12/10/8/6/4/2 r place 0 -"


@pytest.mark.parametrize(
    "game, position",
    [
        ("yinsh", YINSH_START.replace("4/7", "\u00b2\u00b2/7", 1)),
        ("yinsh", YINSH_START.replace("4/7", "\u0664/7", 1)),  # Arabic-Indic four
        ("yinsh", YINSH_START.replace("4/7", "99999999999/7", 1)),
        ("rings", RINGS_START.replace("2/4", "\u00b2/4", 1)),
        ("rings", RINGS_START.replace("2/4", "\u0662/4", 1)),
        ("rings", RINGS_START.replace("2/4", "99999999999/4", 1)),
        ("rings", RINGS_START.replace("place 0", "place \u00b2")),
        ("rings", RINGS_START.replace("place 0", "place \u0660")),
        ("rings", RINGS_START.replace("place 0", "place 99999999999999999999")),
        ("gyges", "321123/000000/000000/000000/000000/32112\u00b3 S"),
    ],
)
def test_non_ascii_and_huge_numbers_in_positions_are_notation_errors(game, position):
    with pytest.raises(NotationError):
        load_game(game).state_from_position(position)


@pytest.mark.parametrize(
    "game, text",
    [
        ("yinsh", "e\u00b3"),
        ("yinsh", "e\u0663"),
        ("yinsh", "\u212a10"),  # KELVIN SIGN lower-cases to k
        ("yinsh", "x\u212a10"),
        ("rings", "K\u0661\u0662"),
        ("rings", "pa\u017fs"),  # LATIN SMALL LONG S upper-cases to S
        ("gyges", "c\u00b9-c3"),
    ],
)
def test_non_ascii_look_alikes_in_actions_are_notation_errors(game, text):
    g = load_game(game)
    s = g.perft_start() if game == "gyges" else g.new_initial_state()
    with pytest.raises(NotationError):
        s.string_to_action(text)


def test_non_ascii_digits_in_an_arrangement_are_notation_errors():
    s = load_game("gyges").new_initial_state()
    with pytest.raises(NotationError):
        s.string_to_action("\u0663\u0662\u0661\u0661\u0662\u0663")


@pytest.mark.parametrize("text", ["1.e3 2.a5 \u0663.b5", "1.e3 2.a5 " + "3" * 5000 + ".b5", "1.e3 2.a\u0665"])
def test_gipf_move_numbers_and_points_are_ascii_and_bounded(text):
    from ringgames.games.yinsh.formats import parse_gipf

    with pytest.raises(RecordError) as exc:
        parse_gipf(text, "g.txt")
    assert len(str(exc.value)) < 300


def test_a_superscript_seat_in_a_resign_line_is_a_record_error():
    with pytest.raises(RecordError, match="seat"):
        loads('[Game "yinsh"]\n\n1. e3\nresign \u00b2\n')[0].replay()


# -- 5. YINSH: a completed row in the move phase ------------------------------------------
# a constructed position (found by a search): White's f2-f10 flips f3..f9 and completes 28 white rows
WHITES = ("b2 b5 c1 c2 c3 c5 c6 c8 d1 d2 d4 d5 d7 d8 e10 e2 e3 e4 e5 e8 g10 g2 g3 g4 g5 g7 g8 h11 h4 h5 h6 h8 "
          "i10 i4 i5 i6 i8 i9 j10 j5 j6 j7 j8").split()


def _yinsh_position(jumped: str = "bbbbwbb", phase: str = "move") -> str:
    from ringgames.games.yinsh.board import NUM_POINTS, point_index
    from ringgames.games.yinsh.notation import format_position

    board = [0] * NUM_POINTS
    for p in WHITES:
        board[point_index(p)] = 1
    for r, c in zip(range(3, 10), jumped, strict=True):
        board[point_index(f"f{r}")] = 1 if c == "w" else 2
    for p in ("f2", "a2", "a3"):
        board[point_index(p)] = 3
    for p in ("k8", "k9", "k10"):
        board[point_index(p)] = 4
    return format_position(board, 0, phase, (2, 2), None, 0)


def test_a_move_phase_position_with_a_completed_row_is_rejected():
    g = load_game("yinsh")
    g.state_from_position(_yinsh_position())  # no row: fine
    with pytest.raises(NotationError, match="row"):
        g.state_from_position(_yinsh_position("bbwwwwwb"[:7]))  # f5..f9 white: a completed white row


def test_a_ring_phase_position_where_the_mover_still_has_a_row_is_rejected():
    g = load_game("yinsh")
    pos = _yinsh_position("bbwwwwwb"[:7]).replace(" w move 2:2 - 0", " b ring 2:2 w 0")
    with pytest.raises(NotationError, match="row"):
        g.state_from_position(pos)


# -- 6. YINSH: more than 16 rows completed by one move ------------------------------------
def test_a_move_completing_28_rows_offers_all_of_them():
    from ringgames.games.yinsh.board import WINDOWS
    from ringgames.games.yinsh.kernel import ROW

    s = load_game("yinsh").state_from_position(_yinsh_position())
    s.play("f2-f10")
    white_rows = [w for w, pts in enumerate(WINDOWS) if all(s.board[q] == 1 for q in pts)]
    assert len(white_rows) == 28
    assert s.phase == "row"
    assert s.legal_actions() == [ROW + w for w in white_rows]
    assert set(white_rows) <= set(s.pending[0])


def test_the_candidate_rows_have_room_for_every_window_of_both_colours():
    from ringgames.games.yinsh import kernel as K
    from ringgames.games.yinsh.board import WINDOWS

    # the candidate rows are a bit set over all windows: every window of both colours fits at once
    assert K.PEND_WORDS * K.WBITS >= len(WINDOWS) and K.WBITS < 32
    s = load_game("yinsh").state_from_position(_yinsh_position())
    for w in range(len(WINDOWS)):
        K._add_pending(s.s, 1, w)
        K._add_pending(s.s, 2, w)
    assert s.pending == [list(range(len(WINDOWS)))] * 2
    assert s.position() == load_game("yinsh").state_from_position(_yinsh_position()).position()


# -- 7. RINGS: a record saved in the middle of a turn ---------------------------------------
def _rings_mid_turn(players: int, seed: int):
    rng = random.Random(seed)
    s = load_game("rings", players=players).new_initial_state()
    for _ in range(400):
        if s.is_terminal():
            break
        if s.phase() != "place" and rng.random() < 0.3:
            return s
        s.apply_action(rng.choice(s.legal_actions()))
    return None


@pytest.mark.parametrize("players", [2, 3])
def test_a_rings_record_saved_mid_turn_replays_mid_turn(players):
    found = 0
    for seed in range(60):
        s = _rings_mid_turn(players, seed)
        if s is None:
            continue
        found += 1
        text = Record.from_state(s).dumps()
        back = loads(text)[0].replay()
        assert back.position() == s.position(), text
        assert back.history == s.history
        assert not back.is_terminal() and back.phase() != "place"
        if found == 5:
            break
    assert found == 5


def test_a_finished_rings_turn_still_needs_no_end_token():
    s = _rings_mid_turn(2, 0)
    assert s is not None
    s.play("end")
    text = Record.from_state(s).dumps()
    assert "end" not in text.split("\n\n", 1)[1] and "..." not in text
    assert loads(text)[0].replay().history == s.history


def test_turn_not_ended_marker_only_ends_the_last_line():
    s = _rings_mid_turn(2, 0)
    text = Record.from_state(s).dumps()
    assert text.rstrip().endswith("...")
    with pytest.raises(RecordError, match="last"):
        loads(text.rstrip() + "\nA1\n")[0].replay()


@pytest.mark.parametrize("players", [2, 3, 4])
def test_rings_records_round_trip_at_any_save_point_with_resignations(players):
    checked = 0
    for seed in range(25):
        rng = random.Random(1000 * players + seed)
        s = load_game("rings", players=players).new_initial_state()
        stop = rng.randrange(1, 120)
        for _ in range(stop):
            if s.is_terminal():
                break
            if rng.random() < 0.02:
                s.resign(rng.choice(s.active_players()))
                continue
            s.apply_action(rng.choice(s.legal_actions()))
        text = Record.from_state(s).dumps()
        back = loads(text)[0].replay()
        assert back.history == s.history, text
        assert back.position() == s.position()
        checked += 1
    assert checked == 25


def test_sgf_tokenizer_follows_the_main_line_and_reads_every_game_tree():
    from ringgames.games.yinsh.formats import parse_sgf

    games = parse_sgf("(;GM[24]C[a\\\nb\\]c];P0[1](;P1[main](;P0[deep]))(;P1[side]))\n(;GM[24];P1[x][y])")
    assert [[n.number for n in g] for g in games] == [[0, 1, 2, 3], [5, 6]]
    assert games[0][0].props == [("GM", ["24"]), ("C", ["ab]c"])]
    assert [n.props[0][1][0] for n in games[0][1:]] == ["1", "main", "deep"]
    assert games[1][1].props == [("P1", ["x", "y"])]


@pytest.mark.parametrize(
    "text, reason",
    [
        ("(;GM[24]", "closing"),
        ("(;GM[24] P0[1 place", "ends inside the value of P0"),
        ("(; [x])", "without a property name"),
        ("(;GM[24] P0 ;)", "without a [value]"),
        ("(GM[24])", "outside a node"),
        ("(;GM[24]))", "without a matching"),
        ("(;GM[24] p0[x])", "unexpected 'p'"),
        ("x(;GM[24])", "not an SGF file"),
        ("(;GM[24](;P0[a])P0[b])", "outside a node"),
        ("(;GM[24](;P0[a]);P0[b])", "after a variation"),
        ("(;GM[24]())", "a game tree without nodes"),
        ("((;GM[24]))", "must start with a node"),
    ],
)
def test_sgf_tokenizer_errors_name_the_place(text, reason):
    from ringgames.games.yinsh.formats import parse_sgf

    with pytest.raises(RecordError, match=re.escape(reason)) as exc:
        parse_sgf(text, "t.sgf")
    assert str(exc.value).startswith("t.sgf: ")


@pytest.mark.parametrize(
    "game, text",
    [("yinsh", "e3" * 100_000), ("rings", "K12" * 100_000), ("gyges", "-".join(["c1", "c2"] * 50_000))],
)
def test_a_huge_action_is_refused_with_a_bounded_message(game, text):
    g = load_game(game)
    s = g.perft_start() if game == "gyges" else g.new_initial_state()
    with pytest.raises(NotationError) as exc:
        s.string_to_action(text)
    assert len(str(exc.value)) < 300


@pytest.mark.parametrize("text", ['[Game "gyges"]\n\n1. 321123 ...\n', '[Game "yinsh"]\n\n1. e3 ...\n',
                                  '[Game "rings"]\n[Players "2"]\n\n1. K12 ...\n'])
def test_turn_goes_on_only_where_the_turn_would_end_by_itself(text):
    # YINSH and Gygès turns never end implicitly, and a RINGS placement without a possible conversion ends anyway
    with pytest.raises(RecordError, match="only follows a turn that would otherwise end here"):
        loads(text, "x.rgn")[0].replay()


def test_turn_comments_are_kept_and_written_back():
    from ringgames.records import Turn, loads, times_comment, turn_times

    text = '[Game "yinsh"]\n[TimeControl "300+3"]\n\n1. e5 ; time=1.250 left=301.750\n2. f6   ;  a  free   comment\n3. d4\n'
    (rec,) = loads(text)
    assert [t.comment for t in rec.turns] == ["time=1.250 left=301.750", "a  free   comment", None]
    assert turn_times(rec.turns[0]) == (1.25, 301.75) and turn_times(rec.turns[1]) is None
    again = rec.dumps()
    assert "1. e5 ; time=1.250 left=301.750\n2. f6 ; a free comment\n3. d4\n" in again
    assert [t.comment for t in loads(again)[0].turns] == ["time=1.250 left=301.750", "a free comment", None]
    assert times_comment(2350, 0) == "time=2.350 left=0.000" and turn_times(Turn(["x"], comment="time=2 left=0")) == (2.0, 0.0)
    assert loads(again)[0].replay().position() == rec.replay().position()
