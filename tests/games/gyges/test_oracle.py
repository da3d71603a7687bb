"""The engine against an independent reference generator, plus invariants: 12 pieces, mirror symmetry,
and the step-level decomposition reaching exactly the successor positions of the legal actions."""

import pytest

from ringgames import load_game
from ringgames.games.gyges import GOAL, decode_move, mirror_action, mirror_board
from ringgames.games.gyges.decompose import advance, options, root, successor_positions

from .helpers import START, as_triples, board_of, random_states, reference_moves, reference_successor, side_of

STANDARD = random_states(11, 150, max_plies=150)
BEGINNER = random_states(12, 60, "beginner", max_plies=150)


@pytest.mark.parametrize("variant,states", [("standard", STANDARD), ("beginner", BEGINNER)])
def test_legal_moves_agree_with_the_reference(variant, states):
    replace = variant == "standard"
    for s in states + [load_game("gyges", variant).state_from_position(START)]:
        legal = s.legal_actions()
        assert legal == sorted(set(legal))
        assert as_triples(legal) == reference_moves(board_of(s), side_of(s), replace), s.position()


def test_reference_reproduces_the_start_counts():
    # the oracle itself is checked against the spec's numbers, so that agreement means something
    board = [3, 2, 1, 1, 2, 3] + [0] * 24 + [3, 2, 1, 1, 2, 3]
    moves = reference_moves(board, 0, True)
    assert len(moves) == 224
    assert len({reference_successor(board, 0, m) for m in moves}) == 211
    assert len(reference_moves(board, 0, False)) == 24


def test_successors_conserve_the_twelve_pieces():
    for s in STANDARD[:25] + BEGINNER[:10]:
        for a in s.legal_actions():
            c = s.clone()
            c.apply_action(a)
            b = board_of(c)
            counts = [b.count(v) for v in (1, 2, 3)]
            won = c.outcome() is not None and c.outcome().reason == "goal"
            if won:  # the mover sits in the goal, off the board
                assert sum(counts) == 11 and sorted(counts) == [3, 4, 4]
            else:
                assert counts == [4, 4, 4], (s.position(), s.action_to_string(a))


def test_mirror_symmetry_maps_legal_moves_to_legal_moves():
    game = load_game("gyges")
    for s in STANDARD[:30] + [game.state_from_position(START)]:
        b, side = board_of(s), side_of(s)
        rows = ["".join(map(str, mirror_board(b)[r * 6 : r * 6 + 6])) for r in range(6)]
        m = game.state_from_position("/".join(rows) + " " + "SN"[side])
        assert sorted(mirror_action(a) for a in s.legal_actions()) == m.legal_actions()
        for a in s.legal_actions()[::7]:  # and the successors are mirror images
            c1, c2 = s.clone(), m.clone()
            c1.apply_action(a)
            c2.apply_action(mirror_action(a))
            assert mirror_board(board_of(c1)) == board_of(c2)


def test_mirror_is_not_the_identity():
    s = load_game("gyges").state_from_position("112233/000000/000000/000000/000000/321123 S")
    legal = s.legal_actions()
    assert sorted(mirror_action(a) for a in legal) != legal


@pytest.mark.parametrize("variant,states", [("standard", STANDARD[:20]), ("beginner", BEGINNER[:15])])
def test_step_decomposition_reaches_the_same_successors(variant, states):
    for s in states + [load_game("gyges", variant).state_from_position(START)]:
        expected = set()
        for a in s.legal_actions():
            c = s.clone()
            c.apply_action(a)
            expected.add((tuple(board_of(c)), side_of(c)))
        assert successor_positions(s) == expected, s.position()


def test_step_decomposition_walk_by_hand():
    # c1 (one ring) -> b1 (two rings): the options at the landing are bounce or replace
    s = load_game("gyges").state_from_position(START)
    n = root(s)
    assert options(n) == [0, 1, 2, 3, 4, 5]  # the whole home row can move
    n = advance(n, 2)  # c1
    assert sorted(options(n)) == [1, 3, 8]  # b1, d1, c2
    n = advance(n, 1)  # onto b1
    assert options(n) == [37, 38]  # bounce, replace
    n = advance(n, 37)
    assert n.rem == 2
    assert GOAL not in options(n)


def test_next_row_fallback():
    # beginner: North's two pieces on row 6 (c6, e6, three rings each) cannot move without replace,
    # so the next non-empty row (row 5) moves; with replace, row 6 moves
    pos = "000030/020000/000000/100010/312221/003030 N"
    b = load_game("gyges", "beginner").state_from_position(pos)
    assert {decode_move(a)[0] // 6 for a in b.legal_actions()} == {4}
    assert as_triples(b.legal_actions()) == reference_moves(board_of(b), 1, False)
    assert b.render().splitlines()[-1] == "North to move, movable row 5"
    s = load_game("gyges").state_from_position(pos)
    assert {decode_move(a)[0] for a in s.legal_actions()} == {32}  # c6 only: e6 is stuck even with replace
    assert as_triples(s.legal_actions()) == reference_moves(board_of(s), 1, True)
