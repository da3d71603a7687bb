"""perft reference values from shared/rules/yinsh.md (Decisions as atomic actions)."""

import pytest
from click.testing import CliRunner

from ringgames import apply_strings, load_game
from ringgames.cli import main

PLACEMENT = "e3 a5 b5 c6 d6 e4 h7 g2 g3 g8"


@pytest.mark.parametrize("depth,expected", [(0, 1), (1, 85), (2, 7140), (3, 592620)])
def test_perft_from_the_empty_board(depth, expected):
    assert load_game("yinsh").new_initial_state().perft(depth) == expected


@pytest.mark.parametrize("depth,expected", [(1, 86), (2, 6258), (3, 486978)])
def test_perft_after_the_reference_placement(depth, expected):
    s = apply_strings(load_game("yinsh").new_initial_state(), PLACEMENT.split())
    assert s.perft(depth) == expected


def test_blitz_perft_equals_standard_where_no_ring_can_be_won():
    s = apply_strings(load_game("yinsh", "blitz").new_initial_state(), PLACEMENT.split())
    assert s.perft(2) == 6258


def test_cli_perft_prints_the_count_last():
    r = CliRunner().invoke(main, ["perft", "yinsh", "2", "--moves", PLACEMENT.upper()])
    assert r.exit_code == 0, r.output
    assert r.output.strip().splitlines()[-1] == "6258"
    r = CliRunner().invoke(main, ["perft", "yinsh", "1", "--variant", "blitz"])
    assert r.output.strip().splitlines()[-1] == "85"


def test_cli_perft_rejects_an_illegal_move_list():
    r = CliRunner().invoke(main, ["perft", "yinsh", "1", "--moves", "e3 e3"])
    assert r.exit_code != 0 and "action 2" in r.output and "not legal" in r.output
