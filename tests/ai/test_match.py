"""Match runner, Elo and the CLI commands match / analyse."""

import json
import math

import pytest
from click.testing import CliRunner

from ringgames.ai.match import GameResult, elo_from_score, elo_summary, seating
from ringgames.cli import main


def test_elo_formula():
    assert elo_from_score(0.5) == 0.0
    assert math.isclose(elo_from_score(0.75), 400 * math.log10(3))
    assert math.isclose(elo_from_score(0.25), -400 * math.log10(3))
    e = elo_summary([1.0] * 6 + [0.0] * 4)
    assert math.isclose(e["score"], 0.6)
    assert e["elo_low"] < e["elo"] < e["elo_high"]
    assert e["elo_low"] < 0  # 10 games at 60% do not show a difference
    sweep = elo_summary([1.0] * 10)
    assert sweep["elo_clipped"] and sweep["elo_low"] < sweep["elo"]



def test_one_game_gives_no_elo_and_two_games_clip_only_past_the_edge():
    one = elo_summary([1.0])  # the clip at 1/(2n) = 0.5 used to turn any single result into +0
    assert (one["score"], one["elo"], one["elo_low"], one["elo_high"], one["elo_clipped"]) == (1.0, None, None, None, False)
    assert elo_summary([0.5])["elo"] is None
    win_draw = elo_summary([1.0, 0.5])  # 0.75 is exactly 1/(2n) from the edge: a true estimate, not a bound
    assert round(win_draw["elo"]) == 191 and win_draw["elo_clipped"] is False
    sweep = elo_summary([1.0, 1.0])  # 1.0 is clipped to 0.75
    assert round(sweep["elo"]) == 191 and sweep["elo_clipped"] is True


def test_match_of_one_game_says_there_is_no_elo_estimate():
    res = CliRunner().invoke(main, ["match", "yinsh", "greedy", "random", "--games", "1", "--variant", "blitz",
                                    "--seed", "1", "--json"])
    assert res.exit_code == 0, res.output
    lines = res.output.strip().splitlines()
    assert "Elo difference: none (one game is too few for an Elo estimate)" in lines
    data = json.loads(lines[-1])
    assert data["games"] == 1 and data["score"] in (0.0, 0.5, 1.0)
    assert (data["elo"], data["elo_low"], data["elo_high"], data["elo_clipped"]) == (None, None, None, False)

def test_seating_alternates_colours():
    assert seating(["A", "B"], 2, 0) == ["A", "B"]
    assert seating(["A", "B"], 2, 1) == ["B", "A"]
    assert seating(["A", "B", "C"], 3, 1) == ["B", "C", "A"]


def test_multiplayer_pairwise_score():
    r = GameResult(index=0, seats=["A", "B", "C"], returns=[1.0, -0.5, -0.5], winners=[0], reason="x", actions=1)
    assert r.score_for("A") == 1.0 and r.score_for("B") == 0.25  # B: lost to A, drew with C
    r2 = GameResult(index=0, seats=["A", "B", "A", "B"], returns=[0.5, -0.5, 0.5, -0.5], winners=[0, 2], reason="x", actions=1)
    assert r2.score_for("A") == 1.0 and r2.score_for("B") == 0.0


def test_match_command_json(tmp_path):
    res = CliRunner().invoke(main, ["match", "yinsh", "greedy", "random", "--games", "2", "--variant", "blitz",
                                    "--seed", "1", "--json", "--save", str(tmp_path)])
    assert res.exit_code == 0, res.output
    data = json.loads(res.output.strip().splitlines()[-1])
    assert data["wins"] + data["draws"] + data["losses"] == 2
    assert 0.0 <= data["score"] <= 1.0
    assert data["score"] == (data["wins"] + 0.5 * data["draws"]) / 2
    assert {"elo", "elo_low", "elo_high"} <= set(data)
    assert len(list(tmp_path.glob("*.rgn"))) == 2


def test_match_rejects_bad_spec():
    res = CliRunner().invoke(main, ["match", "yinsh", "greedy", "bogus"])
    assert res.exit_code != 0 and "bogus" in res.output


def test_analyse_finds_the_win(yinsh_win_in_one):
    res = CliRunner().invoke(main, ["analyse", "yinsh", "--position", yinsh_win_in_one.position(), "--time", "1", "--json"])
    assert res.exit_code == 0, res.output
    data = json.loads(res.output)
    assert data["best"].startswith("c6-") and data["best"] != "c6-c1"
    assert data["win_probability"] == 1.0 and data["evaluation"].startswith("win")


def test_analyse_text_has_pv():
    res = CliRunner().invoke(main, ["analyse", "yinsh", "--moves", "e3 a5 b5 c6 d6 e4 h7 g2 g3 g8", "--time", "0.3"])
    assert res.exit_code == 0, res.output
    lines = res.output.splitlines()
    assert lines[1].startswith("best: ") and lines[2].startswith("evaluation: ") and lines[3].startswith("pv: white:")


def test_play_accepts_agent_specs():
    res = CliRunner().invoke(main, ["play", "yinsh", "--variant", "blitz", "--white", "greedy", "--black", "level:1", "--seed", "2"])
    assert res.exit_code == 0, res.output
    assert "Result:" in res.output


def test_the_interval_stays_honest_after_few_games_and_at_a_sweep():
    from ringgames.ai.match import score_interval

    two = elo_summary([1.0, 1.0])
    assert two["elo_low"] < 0 < two["elo"]  # two wins do not rule out equal strength
    assert round(score_interval([1.0] * 100)[0], 3) == 0.963  # Wilson: n / (n + 1.96²)
    assert score_interval([0.0] * 4)[1] > 0.45  # four losses: still up to about even
    lo, hi = score_interval([1.0, 0.0] * 20)  # no draws: Wilson's interval for 20 of 40
    assert (round(lo, 3), round(hi, 3)) == (0.352, 0.648)
    lo_d, hi_d = score_interval([0.5] * 20 + [1.0, 0.0] * 10)  # same mean, half the games drawn: narrower
    assert lo < lo_d < 0.5 < hi_d < hi


def test_multiplayer_matches_say_which_side_won_each_game():
    from ringgames.ai.match import summarise

    def g(winners, seats=("A", "B", "A", "B"), reason="x"):
        returns = [1.0 if p in winners else -1.0 for p in range(len(seats))]
        return GameResult(index=0, seats=list(seats), returns=returns, winners=winners, reason=reason, actions=1)

    results = [g([0]), g([2]), g([3]), g([0, 1]), g([]), g([1], reason="error"), g([0, 2])]
    res = summarise(["A", "B"], results)
    won = res["won"]
    assert (won["a"], won["others"], won["shared"], won["none"]) == (3, 1, 1, 1)  # the error is left out
    assert won["share"] == (3 + 0.5 + 0.5) / 6 and won["share_low"] < won["share"] < won["share_high"]
    # the pairwise score of a game A's seat won alone is 0.75, of one both its seats won 1
    assert [r.score_for("A") for r in results[:2]] == [0.75, 0.75] and results[6].score_for("A") == 1.0
    assert "won" not in summarise(["A", "B"], [g([0], seats=("A", "B"))])  # two seats: the score says it


def test_a_four_player_match_prints_the_games_each_side_won():
    res = CliRunner().invoke(main, ["match", "rings", "greedy", "random", "--players", "4", "--games", "2",
                                    "--seed", "3", "--json"])
    assert res.exit_code == 0, res.output
    data = json.loads(res.output.strip().splitlines()[-1])
    won = data["won"]
    assert won["a"] + won["others"] + won["shared"] + won["none"] == 2
    line = next(x for x in res.output.splitlines() if x.startswith("games won:"))
    assert f"by greedy's seats {won['a']}, by the others' {won['others']}" in line
    # the pairwise score is called so, not wins and draws (a game greedy's seat won scores 0.75: "between")
    assert f"greedy: pairwise score {data['score']:.3f}" in res.output and " wins, " not in res.output


@pytest.mark.parametrize("args,word", [
    (["rings", "random", "random", "--players", "3"], "given twice"),  # both sides would read as A's
    (["rings", "level:1", "greedy", "level:1"], "given twice"),
    (["rings", "random", "greedy", "--players", "0"], "not 0"),
    (["yinsh", "level:3,scale=-1", "random"], "scale must be a number above 0"),
    (["yinsh", "level:3,scale=nan", "random"], "scale must be a number above 0"),
    (["yinsh", "alphabeta:eval=bogus", "random"], "'bogus'"),
    (["yinsh", "level:3,eval=bogus", "random"], "'bogus'"),
    (["gyges", "mcts:iterations=-5", "random"], "iterations must be a number of at least 0"),
    (["gyges", "search:time=1,time=2", "random"], "option 'time' given twice"),
    (["gyges", "random", "greedy", "--save", "/proc/nope"], "cannot create"),
])
def test_match_refuses_what_would_fail_later_before_any_game(args, word):
    res = CliRunner().invoke(main, ["match", *args, "--games", "1"])
    assert res.exit_code == 2 and word in res.output, res.output
    assert "Traceback" not in res.output and "game/s" not in res.output


def test_play_refuses_a_save_path_in_no_directory_before_the_game(tmp_path):
    res = CliRunner().invoke(main, ["play", "gyges", "--south", "random", "--north", "random",
                                    "--save", str(tmp_path / "missing" / "x.rgn")], input="")
    assert res.exit_code == 2 and "no directory" in res.output and "plays" not in res.output


def test_a_random_opening_is_shared_by_both_colours_and_varies_the_games(tmp_path):
    from ringgames.ai.match import play_game, run_match

    # --opening 1 (Gygès: South's arrangement at random): the same arrangement for both colours of a pairing
    games = [play_game("gyges", seating(["greedy", "greedy:eval=0"], 2, i), i, seed=3, opening=1,
                       opening_key=i // 2).history for i in range(8)]
    firsts = [h[0] for h in games]
    assert firsts[0::2] == firsts[1::2]  # games 2j and 2j + 1 (colours swapped) open alike
    assert len(set(firsts)) >= 3  # and the openings differ (90 arrangements)
    assert play_game("gyges", ["greedy", "greedy:eval=0"], 1, seed=3, opening=1, opening_key=0).history[0] == firsts[0]
    res = run_match("gyges", ["greedy", "greedy:eval=0"], games=4, seed=3, opening=1)
    assert res["games"] == 4
    # the command line: the same openings, said in the summary
    out = tmp_path / "g"
    r = CliRunner().invoke(main, ["match", "gyges", "greedy", "greedy:eval=0", "-n", "4", "--seed", "3",
                                  "--opening", "1", "--save", str(out)])
    assert r.exit_code == 0, r.output
    assert "the first 1 decision(s) of each at random" in r.output
    saved = sorted(out.glob("*.rgn"))
    assert [p.read_text().split("\n1. ")[1].split()[0] for p in saved] == firsts[:4]
    assert CliRunner().invoke(main, ["match", "gyges", "greedy", "random", "--opening", "41"]).exit_code == 2
    # a random opening never ends the game while another action is legal: every agent gets to move
    for i in range(4):
        r = play_game("gyges", seating(["greedy", "random"], 2, i), i, seed=4, opening=40, opening_key=i // 2)
        assert r.actions > 40 and r.think["greedy"] > 0.0
