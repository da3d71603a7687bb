"""Square names, move notation (canonical writer, permissive reader), arrangements and position strings."""

import pytest

from ringgames import IllegalActionError, NotationError, load_game
from ringgames.games.gyges import ARRANGEMENTS, GOAL, NO_DROP, PASS, PRESETS, decode_move, encode_move

from .helpers import START, board_of, landing_sequences, random_states, side_of

STATES = random_states(21, 40, max_plies=120)
NAMES = [f"{f}{r}" for r in "123456" for f in "abcdef"]


def game(variant=None):
    return load_game("gyges", variant)


def test_arrangements_and_presets():
    assert len(ARRANGEMENTS) == 90 and len(set(ARRANGEMENTS)) == 90
    assert all(sorted(a) == list("112233") for a in ARRANGEMENTS)
    assert PRESETS == ("321123", "123321", "231132", "312213") and set(PRESETS) <= set(ARRANGEMENTS)


def test_position_round_trip():
    for s in STATES + [game().state_from_position(START)]:
        pos = s.position()
        t = s.game.state_from_position(pos)
        assert t.position() == pos and t.legal_actions() == s.legal_actions()
        assert t.hash_key() == s.hash_key()
    s = game().state_from_position("202110/000330/000000/000200/000100/030123 n")
    assert s.position() == "202110/000330/000000/000200/000100/030123 N"
    assert board_of(s)[0] == 2 and board_of(s)[4] == 1 and board_of(s)[31] == 3 and board_of(s)[33] == 1


def test_setup_positions():
    g = game()
    empty = "000000/000000/000000/000000/000000/000000 S"
    s = g.state_from_position(empty)
    assert s.position() == g.new_initial_state().position() == empty
    assert s.legal_actions() == list(range(90))
    s.play("231132")
    assert s.position() == "231132/000000/000000/000000/000000/000000 N"
    t = g.state_from_position(s.position())
    assert t.current_player() == 1 and t.legal_actions() == list(range(90))
    t.play("123321")
    assert t.position() == "231132/000000/000000/000000/000000/123321 S"
    assert t.legal_actions() == g.state_from_position(t.position()).legal_actions()


@pytest.mark.parametrize(
    "text,reason",
    [
        ("321123/000000/000000/000000/000000 S", "5 rows"),
        ("321123/000000/000000/000000/000000/32112 S", "row 6"),
        ("321123/000000/000000/000000/000000/321124 S", "row 6, file f"),
        ("321123/000000/000000/000000/000000/321123 X", "S or N"),
        ("321123/000000/000000/000000/000000/321123", "side to move"),
        ("321123/000000/000000/000000/000000/321133 S", "3 pieces with 2 ring"),
        ("321123/100000/000000/000000/000000/321123 S", "13 pieces"),
        ("000000/000000/000000/000000/000000/000000 N", "must be S"),
        ("321123/000000/000000/000000/000000/000000 S", "North's setup"),
        ("000000/000000/000000/000000/000000/321123 N", "North's setup"),
        ("321123/000000/000000/000000/000000/121120 S", "5/4/2"),
        ("321123/000000/000000/000000/000000/001123 S", "10 pieces"),
    ],
)
def test_bad_positions_name_the_reason(text, reason):
    with pytest.raises(NotationError, match=reason):
        game().state_from_position(text)


def test_won_position_string_round_trips():
    s = game().state_from_position("000000/000000/000000/000000/321123/321123 S")
    s.play("c5-c6-G")
    assert s.position() == "000000/000000/000000/000000/320123/321123 N"
    t = game().state_from_position(s.position())
    assert t.outcome() == s.outcome() and t.result_string() == "south" and t.legal_actions() == []


def test_every_legal_action_string_parses_back():
    for s in STATES[::2] + [game().state_from_position(START)]:
        for a in s.legal_actions():
            text = s.action_to_string(a)
            assert text.removesuffix("-G") == text.removesuffix("-G").lower()  # the goal is written G, as in the spec
            assert s.string_to_action(text) == a
            assert s.string_to_action(text.upper()) == a


def _rank(seq):
    return [NAMES[x] for x in seq]


def test_alternative_landing_sequences_parse_and_the_writer_picks_the_canonical_one():
    checked = alternatives = 0
    for s in STATES + [game().state_from_position(START)]:
        board, side = board_of(s), side_of(s)
        legal = set(s.legal_actions())
        starts = {decode_move(a)[0] for a in legal}
        for start in sorted(starts):
            for (st, end, replaced), seqs in landing_sequences(board, side, start, 2).items():
                if end == "G":
                    a = encode_move(st, GOAL, NO_DROP)
                    texts = ["-".join(NAMES[x] for x in q) + "-G" for q in seqs]
                else:
                    drops = sorted({decode_move(b)[2] for b in legal if decode_move(b)[:2] == (st, end)} - {NO_DROP})
                    if replaced and not drops:
                        continue
                    d = drops[0] if replaced else NO_DROP
                    a = encode_move(st, end, d)
                    suffix = f"({NAMES[d]})" if replaced else ""
                    texts = ["-".join(NAMES[x] for x in q) + suffix for q in seqs]
                assert a in legal
                for text in texts:
                    assert s.string_to_action(text) == a, (s.position(), text)
                alternatives += len(texts) - 1
                best = min(seqs, key=lambda q: (len(q), _rank(q)))
                if len(best) - 2 + (end == "G") <= 2:  # at most 2 bounces: surely the minimum of all sequences
                    canon = "-".join(NAMES[x] for x in best) + ("-G" if end == "G" else "")
                    assert s.action_to_string(a).split("(")[0] == canon
                    checked += 1
    assert checked > 600 and alternatives > 150


def test_examples_from_the_start():
    s = game().state_from_position(START)
    c1 = sorted(s.action_to_string(a) for a in s.legal_actions() if s.action_to_string(a).startswith("c1") and "(" not in s.action_to_string(a))
    assert c1 == ["c1-b1-a2", "c1-b1-b3", "c1-c2", "c1-d1-d2", "c1-d1-e1-e3", "c1-d1-e1-f2"]
    assert s.action_to_string(s.string_to_action("C1-B1-C2")) == "c1-c2"  # a bounce on b1 (2 rings) back to c2
    assert s.action_to_string(s.string_to_action("c1-b1(a4)")) == "c1-b1(a4)"


@pytest.mark.parametrize(
    "text,error,reason",
    [
        ("c1-d1-c2", IllegalActionError, "no legal path c1-d1-c2"),
        ("c1-c3", IllegalActionError, "no legal path c1-c3"),
        ("c1-b1-g", IllegalActionError, "no legal path c1-b1-G"),
        ("a2-a3", IllegalActionError, "a2 is empty"),
        ("a6-a5", IllegalActionError, "a6 is not on South's movable row \\(row 1\\)"),
        ("c1-b1", IllegalActionError, "b1 is occupied: bounce on it or replace it"),
        ("c1-c2(a3)", IllegalActionError, "c2 is empty, there is nothing to replace"),
        ("c1-b1(d1)", IllegalActionError, "on d1: it is occupied"),
        ("c1-b1(b1)", IllegalActionError, "the moving piece stays there"),
        ("pass", IllegalActionError, "has a legal move"),
        ("321123", IllegalActionError, "the setup is over"),
        ("c1", NotationError, "needs a start and an end"),
        ("c1-z9", NotationError, "'z9' is not a square"),
        ("c1--c2", NotationError, "is not a move"),
        ("c1-c2(a3", NotationError, "is not a move"),
        ("c1-g(a3)", NotationError, "cannot replace"),
        ("321124", NotationError, "two 1s, two 2s and two 3s"),
    ],
)
def test_bad_moves_are_rejected_with_a_reason(text, error, reason):
    s = game().state_from_position(START)
    with pytest.raises(error, match=reason):
        s.string_to_action(text)


def test_drop_limit_follows_the_opponents_nearest_row():
    s = game().state_from_position("321123/000000/000000/000000/321123/000000 S")
    with pytest.raises(IllegalActionError, match="beyond North's nearest non-empty row"):
        s.string_to_action("c1-b1(a6)")
    assert s.action_to_string(s.string_to_action("c1-b1(a4)")) == "c1-b1(a4)"
    drops = {decode_move(a)[2] for a in s.legal_actions()} - {NO_DROP}
    assert drops and max(d // 6 for d in drops) == 3  # row 4: row 5 is full, row 6 is beyond
    n = game().state_from_position("000000/321123/000000/000000/000000/321123 N")
    drops = {decode_move(a)[2] for a in n.legal_actions()} - {NO_DROP}
    assert min(d // 6 for d in drops) == 2  # row 3: row 2 is full and row 1 is beyond


def test_beginner_rejects_replace():
    s = game("beginner").state_from_position(START)
    with pytest.raises(IllegalActionError, match="replace is not allowed in the beginner variant"):
        s.string_to_action("c1-b1(a4)")
    with pytest.raises(IllegalActionError, match="b1 is occupied: bounce on it or replace it$"):
        s.string_to_action("c1-b1")


def test_setup_phase_notation():
    s = game().new_initial_state()
    with pytest.raises(IllegalActionError, match="must first place a piece set on row 1"):
        s.string_to_action("c1-c2")
    a = s.play("321123")
    assert s.history == [a] and s.action_to_string(a) == "321123"
    with pytest.raises(IllegalActionError, match="row 6"):
        s.string_to_action("c6-c5")
    s.play("312213")
    assert s.position() == "321123/000000/000000/000000/000000/312213 S"
    assert s.action_to_string(PASS) == "pass"
