"""The RINGS evaluation's features and named weights, and its tuning on self-play games with 3-6 players (a
conditional logit over the seats: ``ringgames tune rings``, issue #35)."""

import random

import numpy as np
import pytest
from click.testing import CliRunner

from ringgames import load_game
from ringgames.ai import tuning_rings as T
from ringgames.ai.agents import make_agent
from ringgames.ai.compiled import rings as CR
from ringgames.ai.evaluation import get_evaluator
from ringgames.ai.evaluation import rings as R
from ringgames.cli import main


def _random_states(players: int, games: int = 3, seed: int = 1):
    rng = random.Random(seed)
    for _ in range(games):
        s = load_game("rings", None, players).new_initial_state()
        while not s.is_terminal():
            if rng.random() < 0.1:
                yield s.clone()
            s.apply_action(rng.choice(s.legal_actions()))


@pytest.mark.parametrize("players", [2, 4, 6])
def test_features_times_hand_weights_is_today_s_evaluation(players):
    ev = R.make_evaluate(R.HAND_WEIGHTS)
    n = 0
    for s in _random_states(players):
        assert ev(s) == pytest.approx(R.evaluate(s), abs=1e-9), s.position()
        f = R.seat_features(s)
        vals = [100 * a + 25 * b + 12 * c for a, b, c in f]
        if players > 2:
            mean = sum(vals) / players
            assert R.evaluate(s) == pytest.approx([v - mean for v in vals])
        n += 1
    assert n > 20


def test_the_lead_cap_caps_each_circle_s_lead():
    for s in _random_states(4, games=2, seed=3):
        caps = [R.seat_features(s, cap) for cap in (1, 2, 3, 9)]
        for p in range(4):
            leads = [c[p][2] for c in caps]
            assert leads == sorted(leads)  # a higher cap never counts less
            assert [c[p][:2] for c in caps] == [caps[0][p][:2]] * 4  # majorities and rings do not depend on it


def test_the_compiled_evaluation_reads_the_named_weights():
    """The kernel's seat values with the tuned file's weights are the Python evaluation's (before centring)."""
    data = R.load_weights()
    w = data["weights"]
    wts, wtab = CR.weights_for("tuned")
    assert list(wts) == [w["majority"], w["ring"], w["lead"], w["lead_cap"]]
    hand, _ = CR.weights_for("")
    assert list(hand) == [100.0, 25.0, 12.0, 3.0]
    ev, scale = get_evaluator("rings", "tuned")
    assert scale == data["scale"]
    for s in _random_states(4, games=1, seed=5):
        vals = np.zeros(8)
        CR.seat_values(s.s, wts, vals)
        mean = float(vals[:4].mean())
        assert ev(s) == pytest.approx([float(v) - mean for v in vals[:4]], abs=1e-6)


def test_bad_names_are_refused():
    with pytest.raises(ValueError, match="known: hand, tuned"):
        get_evaluator("rings", "nonsense")
    with pytest.raises(ValueError, match="known: hand, tuned"):
        CR.weights_for("nonsense")
    with pytest.raises(ValueError, match="without"):
        R.make_evaluate({"majority": 1.0})


def test_the_weight_file_names_its_fit():
    data = R.load_weights()
    assert data["game"] == "rings"
    assert set(data["weights"]) == {"majority", "ring", "lead", "lead_cap"}
    assert all(v >= 0 for v in data["weights"].values())
    f = data["fit"]
    assert f["games"] >= 100 and f["positions"] > 10 * f["games"]
    # the fit is shipped because it predicts held-out games better than today's weights
    assert f["results"]["tuned"]["cv"]["log_loss"] < f["results"]["hand"]["cv"]["log_loss"]


def test_uct_with_the_tuned_evaluation_plays_four_players():
    s = load_game("rings", None, 4).new_initial_state()
    a = make_agent("uct:iterations=200,c=0.2,eval=tuned,seed=1").choose(s)
    assert a in s.legal_actions()


def test_fit_recovers_known_conditional_logit_weights():
    rng = np.random.default_rng(7)
    n, seats = 40_000, 4
    x = rng.poisson(2.0, size=(n, seats, 3)).astype(float)
    truth = np.array([0.8, 0.3, 0.1])
    p = T._softmax(x @ truth)
    winners = np.array([rng.choice(seats, p=row) for row in p])
    y = np.zeros((n, seats))
    y[np.arange(n), winners] = 1.0
    beta = T.fit_weights(x, y, prior=np.array([0.5, 0.5, 0.5]), l2=0.0)
    assert beta == pytest.approx(truth, abs=0.03)
    # the scale alone, for values that are the truth's times 1/2
    assert T.fit_scale(x @ truth / 2, y) == pytest.approx(2.0, rel=0.05)
    # the log-loss of the truth is below that of equal chances (log 4)
    assert T.softmax_log_loss(x @ truth, y) < np.log(4) - 0.1


def test_fit_keeps_weights_non_negative():
    rng = np.random.default_rng(3)
    n = 20_000
    x = rng.poisson(2.0, size=(n, 4, 3)).astype(float)
    truth = np.array([0.6, -0.4, 0.2])  # the second feature goes with losing
    p = T._softmax(x @ truth)
    y = np.zeros((n, 4))
    y[np.arange(n), [rng.choice(4, p=row) for row in p]] = 1.0
    beta = T.fit_weights(x, y, prior=np.array([0.5, 0.5, 0.5]), l2=0.0)
    assert beta[1] == 0.0 and beta[0] > 0.4 and beta[2] > 0.1


def test_positions_and_labels_of_a_self_play_game():
    [h] = T.selfplay_histories(1, players=3, seed=2, spec="uct:iterations=30")
    x, y = T.positions_of_game(3, h)
    assert x.shape[0] == len(T.CAPS) and x.shape[2:] == (3, 3)
    assert y.sum() == pytest.approx(1.0) and (y > 0).sum() < 3
    # the last position's majorities are the final position's but for the last turn's changes: the winner's
    # seat holds at least as many circles as any other at the end
    s = load_game("rings", None, 3).new_initial_state()
    for a in h:
        s.apply_action(a)
    held = [f[0] for f in R.seat_features(s)]
    assert all(held[int(np.argmax(y))] >= v for v in held)
    with pytest.raises(ValueError, match="do not reach"):
        T.positions_of_game(3, h[:-5])


def test_self_play_is_the_same_for_the_same_seed_whatever_the_jobs():
    a = T.selfplay_histories(2, players=4, seed=9, spec="uct:iterations=20")
    b = T.selfplay_histories(2, players=4, seed=9, spec="uct:iterations=20", jobs=2)
    assert a == b
    assert a[0][:T.OPENING] != a[1][:T.OPENING]  # the random openings differ


def test_tune_on_given_games_is_deterministic_and_reports_the_caps():
    hist = T.selfplay_histories(6, players=4, seed=4, spec="random")
    d1 = T.tune(players=4, histories=hist)
    d2 = T.tune(players=4, histories=hist)
    assert d1 == d2
    assert d1["weights"]["lead_cap"] in T.CAPS
    assert {f"tuned_cap{c}" for c in T.CAPS} <= set(d1["fit"]["results"])
    assert d1["fit"]["games"] == 6 or d1["fit"]["games"] == 5
    with pytest.raises(ValueError, match="too few"):
        T.tune(players=4, histories=hist[:2])
    with pytest.raises(ValueError, match="3 to 6"):
        T.tune(players=2, histories=hist)


def test_tune_rings_command(tmp_path):
    out = tmp_path / "w.json"
    r = CliRunner().invoke(main, ["tune", "rings", "--players", "3", "--selfplay", "6", "--seed", "1",
                                 "--spec", "random", "--out", str(out)])
    assert r.exit_code == 0, r.output
    assert "held-out log-loss" in r.output and "tuned, lead cap 3" in r.output
    data = R.load_weights(out)
    assert data["fit"]["sources"][0].startswith("6 self-play games of random") and "3 players" in data["fit"]["sources"][0]
    r = CliRunner().invoke(main, ["tune", "rings", "--fix", "ring"])
    assert r.exit_code != 0 and "self-play games only" in r.output


#: a four-player position after 120 seeded random actions: (features with lead cap 2, today's evaluation, the tuned
#: evaluation of the shipped rings_weights.json); a refit that changes the file changes the last column
RECORDED_POSITION = ("by/1rb1/rrr1yr/y4ygg/3yyrrry1/rb1r1b1gbr1g/rbgb1ryg4/g2b2bg2b1/y7gyr1/r1gbyg2g3/1g1b4gg1b/"
                     "1g1yb1ybggg1/brr3yr4/y1gg2rb1y1g/yr1ygbb1y3/gbr2g1b2yy/g2g1bgyrryy/4b1rgb2y/1ybyrybr2/br3gr1/"
                     "2yb2/r3/b1 b place 0 -")


def test_the_shipped_weights_give_the_recorded_values():
    s = load_game("rings", None, 4).state_from_position(RECORDED_POSITION)
    assert R.seat_features(s, 2) == [(0, 0, 13), (0, 0, 17), (1, 0, 25), (1, 0, 13)]
    assert R.evaluate(s) == [-98.0, -62.0, 170.0, -10.0]
    ev, scale = get_evaluator("rings", "tuned")
    assert [round(v, 3) for v in ev(s)] == [-150.986, -49.258, 252.714, -52.47]
    assert scale == pytest.approx(379.883)
