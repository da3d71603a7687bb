"""``AlphaBetaAgent``'s depth option means what it says, or is refused with a clear error."""

import pytest
from click.testing import CliRunner

from ringgames.ai.agents import make_agent
from ringgames.ai.alphabeta import DEFAULT_DEPTH, MAX_DEPTH, MAX_UNTIMED_DEPTH, AlphaBetaAgent
from ringgames.cli import main


def test_depth_given_is_the_depth_searched_up_to():
    assert AlphaBetaAgent(depth=4).max_depth == 4
    assert AlphaBetaAgent(depth=MAX_UNTIMED_DEPTH).max_depth == MAX_UNTIMED_DEPTH
    # with a time budget any depth up to the limit is honoured: iterative deepening stops at the deadline
    assert AlphaBetaAgent(depth=64, time=2).max_depth == 64
    assert AlphaBetaAgent(depth=12, time=2).max_depth == 12


def test_defaults_without_and_with_a_time_budget():
    assert DEFAULT_DEPTH == 3 and MAX_DEPTH == 64
    assert AlphaBetaAgent().max_depth == DEFAULT_DEPTH
    assert AlphaBetaAgent(time=1).max_depth == MAX_DEPTH
    assert make_agent("alphabeta:time=0.5").max_depth == MAX_DEPTH


def test_depth_64_without_a_time_budget_is_refused_not_silently_3():
    with pytest.raises(ValueError, match=r"depth=64 without a time budget.*time=SECONDS"):
        AlphaBetaAgent(depth=64)
    with pytest.raises(ValueError, match="without a time budget"):
        make_agent(f"alphabeta:depth={MAX_UNTIMED_DEPTH + 1}")


@pytest.mark.parametrize("depth", [0, -1, 65, 2.5, "3", True])
def test_impossible_depths_are_refused(depth):
    with pytest.raises(ValueError, match="depth must be a whole number of turns from 1 to 64"):
        AlphaBetaAgent(depth=depth, time=1)


def test_negative_time_is_refused():
    with pytest.raises(ValueError, match="positive number of seconds"):
        AlphaBetaAgent(time=-1)


def test_cli_names_the_bad_depth_without_a_traceback():
    r = CliRunner().invoke(main, ["match", "yinsh", "alphabeta:depth=64", "random", "-n", "1"])
    assert r.exit_code == 2, r.output
    assert "depth=64 without a time budget" in r.output and "Traceback" not in r.output
