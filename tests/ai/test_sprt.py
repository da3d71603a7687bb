"""The SPRT of ``ringgames match --sprt`` (issue #35): LLR on known counts, bounds, stopping."""

import math

import pytest
from click.testing import CliRunner

from ringgames.ai.match import run_match
from ringgames.ai.sprt import SPRT, bounds, expected_score, llr, llr_pentanomial, llr_trinomial
from ringgames.cli import main


def test_bounds_and_expected_scores():
    lo, hi = bounds(0.05, 0.05)
    assert lo == pytest.approx(math.log(0.05 / 0.95)) and hi == pytest.approx(math.log(0.95 / 0.05))
    assert hi == pytest.approx(2.944439, abs=1e-6)
    assert bounds(0.05, 0.1) == pytest.approx((math.log(0.1 / 0.95), math.log(0.9 / 0.05)))
    assert expected_score(0) == 0.5 and expected_score(400) == pytest.approx(10 / 11)
    with pytest.raises(ValueError):
        bounds(0, 0.05)


def test_llr_on_known_counts():
    s0, s1 = 0.5, 1 / (1 + 10 ** (-50 / 400))  # 0.571463
    # two values only: the distribution with mean s is forced (p(win) = s), so the LLR is the binomial one
    by_hand = 60 * math.log(s1 / s0) + 40 * math.log((1 - s1) / (1 - s0))
    assert llr({1.0: 60, 0.0: 40}, 0, 50) == pytest.approx(by_hand) == pytest.approx(1.84626, abs=1e-5)
    # the unseen draw counts 0.001 (Fishtest's regularisation): a hair away
    assert llr_trinomial(60, 0, 40, 0, 50) == pytest.approx(1.84626, abs=1e-4)
    # with draws: close to the normal approximation N (s1 - s0)(2 mean - s0 - s1) / (2 var), mean 0.6, var 0.19
    normal = 100 * (s1 - s0) * (1.2 - s0 - s1) / (2 * 0.19)
    assert llr_trinomial(50, 20, 30, 0, 50) == pytest.approx(2.31575, abs=1e-4) == pytest.approx(normal, rel=0.05)
    # an even score is evidence for H0; a bad one more so; one win is no decision
    assert llr_trinomial(50, 0, 50, 0, 50) < 0
    assert llr_trinomial(40, 0, 60, 0, 50) < llr_trinomial(50, 0, 50, 0, 50)
    assert llr_trinomial(1, 0, 0, 0, 50) == pytest.approx(math.log(s1 / s0), abs=1e-3)
    assert llr_trinomial(0, 0, 0, 0, 50) == 0.0
    assert llr({1.0: 5}, 0, 50) == 0.0  # unregularised one-sided results cannot tell
    # pentanomial pairs scoring [0, ½, 1, 1½, 2] points are the values 0, ¼, ½, ¾, 1
    pairs = [3, 10, 20, 12, 5]
    assert llr_pentanomial(pairs, 0, 50) == pytest.approx(llr({k / 4: c for k, c in enumerate(pairs)}, 0, 50))
    mean = sum(k / 4 * c for k, c in enumerate(pairs)) / 50
    var = sum(c * (k / 4 - mean) ** 2 for k, c in enumerate(pairs)) / 50
    assert llr_pentanomial(pairs, 0, 50) == pytest.approx(50 * (s1 - s0) * (2 * mean - s0 - s1) / (2 * var), rel=0.05)
    with pytest.raises(ValueError):
        llr_pentanomial([1, 2, 3], 0, 50)


def test_running_sprt_decides_both_ways():
    t = SPRT(0, 50)
    for _ in range(200):
        t.add(1.0)
        t.add(0.0)
    assert t.status == "H0" and t.llr <= t.lower  # 0.5 after 400 games: not +50 Elo
    t = SPRT(0, 50)
    n = 0
    while t.status == "running":
        for s in (1.0, 1.0, 0.0, 0.5):  # 0.625: about +89 Elo
            t.add(s)
            n += 1
    assert t.status == "H1" and 8 <= n < 400 and "H1" in t.line()
    with pytest.raises(ValueError, match="elo1 > elo0"):
        SPRT(50, 0)


def test_run_match_stops_when_told():
    seen = []
    res = run_match("yinsh", ["greedy", "random"], games=10, seed=1, on_result=seen.append,
                    stop=lambda: len(seen) >= 3)
    assert res["games"] == 3 and len(seen) == 3


def test_match_command_with_sprt_stops_at_the_bound():
    r = CliRunner().invoke(main, ["match", "yinsh", "greedy", "random", "--games", "40", "--sprt", "0,100", "--json"])
    assert r.exit_code == 0, r.output
    assert "H1 accepted" in r.output
    import json

    data = json.loads(r.output.strip().splitlines()[-1])
    assert data["sprt"]["status"] == "H1" and data["sprt"]["llr"] >= data["sprt"]["upper"]
    assert data["games"] < 40 and data["wins"] == data["games"]


@pytest.mark.parametrize("bad", ["50", "50,0", "a,b", "0,50,1"])
def test_match_command_refuses_bad_sprt_bounds(bad):
    r = CliRunner().invoke(main, ["match", "yinsh", "greedy", "random", "--sprt", bad])
    assert r.exit_code == 2 and "--sprt" in r.output


def test_match_command_with_sprt_and_four_seats_tests_who_won():
    """With more than two seats each game counts as who won it: the side whose seats won every game is accepted
    as stronger, although its pairwise score is only 0.75 (its seat that did not win is level with the others')."""
    r = CliRunner().invoke(main, ["match", "rings", "uct:iterations=40,seed=1", "random", "--players", "4",
                                  "--games", "30", "--sprt", "0,150", "--json"])
    assert r.exit_code == 0, r.output
    import json

    data = json.loads(r.output.strip().splitlines()[-1])
    n = data["games"]
    assert data["sprt"]["status"] == "H1" and data["sprt"]["llr"] >= data["sprt"]["upper"] and n < 30
    assert data["won"]["a"] == n and data["score"] == 0.75  # the test counted sides: 0.75 alone would not pass it
    assert f"{n}-0-0, LLR" in r.output


def test_match_command_sprt_needs_two_agents():
    r = CliRunner().invoke(main, ["match", "rings", "greedy", "random", "greedy:eval=0", "--sprt", "0,50"])
    assert r.exit_code == 2 and "two agents" in r.output


@pytest.mark.parametrize("args,word", [(("0", "70", 0.9, 0.9), "add up to less than 1"),
                                       (("0", "70", 0.5, 0.5), "add up to less than 1"),
                                       (("0", "inf", 0.05, 0.05), "elo1 must be a number of Elo"),
                                       (("nan", "70", 0.05, 0.05), "elo0 must be a number of Elo"),
                                       (("0", "100000", 0.05, 0.05), "from -1000 to 1000")])
def test_sprt_refuses_crossed_bounds_and_endless_elo(args, word):
    elo0, elo1, alpha, beta = args
    with pytest.raises(ValueError, match=word):
        SPRT(float(elo0), float(elo1), alpha, beta)
    r = CliRunner().invoke(main, ["match", "gyges", "random", "greedy", "--sprt", f"{elo0},{elo1}",
                                  "--alpha", str(alpha), "--beta", str(beta)])
    assert r.exit_code == 2 and word in r.output and "Traceback" not in r.output


def test_the_verdict_is_the_first_crossing_and_later_games_are_not_counted():
    """Games in parallel end after the test decided: they are reported, not counted (a loss after H1 cannot undo it)."""
    t = SPRT(0, 400)
    while t.status == "running":
        t.add(1.0)
    wins, llr = t.wins, t.llr
    for _ in range(5):
        t.add(0.0)
    assert t.status == "H1" and (t.wins, t.losses, t.llr, t.after) == (wins, 0, llr, 5)
    assert "5 game(s) ended after the verdict, not counted" in t.line()
