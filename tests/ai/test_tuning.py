"""The YINSH evaluation as features · weights, the tuned weight file, and the tuning procedure (issue #35)."""

import json
import random
from pathlib import Path

import numpy as np
import pytest

from ringgames import load_game
from ringgames.ai import tuning
from ringgames.ai.agents import make_agent
from ringgames.ai.evaluation import get_evaluator
from ringgames.ai.evaluation import yinsh as Y

BOARDSPACE = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "yinsh" / "boardspace-2005"

# (position, today's evaluation, the tuned evaluation): recorded from positions of seeded random play;
# today's values were checked against the evaluation before the refactoring on 14,427 positions.
RECORDED = [
    ("4/3B3/5W2/1W7/6b3/B3B2B1/10/3WB4/4w3/3W2W/4 w move 0:0 - 0", -39.0, -25.128),
    ("4/2Bw2b/3W1w2/1w3W2b/3b2b3/B2Bbw1b1/5Ww3/1B1WB4/3Ww3/3w2w/4 w move 0:0 - 0", 90.0, 49.559),
    ("1bbb/2bb2b/1wBwwwB1/1w1B1w1bb/3bW1wwb1/b2bwbwbb/b2Wwwb1W1/bb1wBb1W1/bBbwbw2/3wW1w/1ww1 w move 0:0 - 0",
     501.0, 1025.264),
    ("4/1w5/2bBB3/9/B1wW1Wb1W1/2w4w1/1bww1b1bw1/Bw2wW3/bBwbW3/7/4 b move 0:0 - 0", 150.0, 69.276),
    ("B1b1/1w2b2/2bbb3/2b1wB2W/bWbw1wbWb1/BBwb3wW/1bbw1b1bb1/bbwBwwwww/bbwbwwwW/6w/4 w row 0:0 w 0", 383.0, 835.548),
    ("b1b1/1wB1b2/1bwwwb2/Bbbwbw2w/bbbbbwbBbW/BbbwwW1ww/1bbwbwbbb1/bbbw5/bwwwwwwW/w2b1Ww/2B1 b row 1:0 b 0",
     59.0, -553.337),
    ("B1b1/1w2b2/2bbb3/2b1wB2W/bWbw1wbWb1/BBwb3wW/1bbw1b1bb1/bbwB5/bbwbwwwW/6w/4 w ring 0:0 w 0", 320.0, 524.581),
]


def _state(position):
    return load_game("yinsh").state_from_position(position)


@pytest.mark.parametrize(("position", "hand", "tuned"), RECORDED)
def test_today_and_tuned_evaluations_give_the_recorded_values(position, hand, tuned):
    s = _state(position)
    assert Y.evaluate(s) == [hand, -hand]
    weights = Y.load_weights()["weights"]
    value = Y.evaluator("tuned")[0](s)
    assert value[0] == pytest.approx(tuned, abs=1e-6) and value[1] == pytest.approx(-tuned, abs=1e-6)
    f = Y.features(s)
    assert float(f @ np.array([Y.HAND_WEIGHTS[k] for k in Y.FEATURES])) == pytest.approx(hand, abs=1e-9)
    assert float(f @ np.array([weights[k] for k in Y.FEATURES])) == pytest.approx(tuned, abs=1e-6)


def test_features_times_weights_is_the_evaluation_along_random_games():
    g = load_game("yinsh")
    rng = random.Random(7)
    hand = np.array([Y.HAND_WEIGHTS[k] for k in Y.FEATURES])
    weights = Y.load_weights()["weights"]
    tuned = np.array([weights[k] for k in Y.FEATURES])
    tuned_eval = Y.evaluator("tuned")[0]
    seen = set()
    for _ in range(6):
        s = g.new_initial_state()
        while not s.is_terminal():
            f = Y.features(s)
            seen.add(s.phase)
            assert Y.evaluate(s)[0] == pytest.approx(float(f @ hand), abs=1e-9)
            assert tuned_eval(s)[0] == pytest.approx(float(f @ tuned), abs=1e-6)
            s.apply_action(rng.choice(s.legal_actions()))
    assert {"place", "move", "row", "ring"} <= seen


def test_the_weight_file_is_small_complete_and_names_its_fit():
    data = json.loads(Y.WEIGHTS_FILE.read_text())
    assert Y.WEIGHTS_FILE.stat().st_size < 5000
    assert data["features"] == list(Y.FEATURES) and set(data["weights"]) == set(Y.FEATURES)
    r = data["fit"]["results"]
    # the shipped weights predict held-out games better than today's (5-fold cross-validation)
    assert r["tuned"]["cv"]["log_loss"] < r["hand"]["cv"]["log_loss"]
    assert data["fit"]["positions"] > 30_000 and data["fit"]["games"] > 800
    assert get_evaluator("yinsh", "tuned")[1] == data["scale"]


def test_bad_weight_files_and_names_are_refused(tmp_path):
    bad = tmp_path / "w.json"
    bad.write_text(json.dumps({"weights": {"rings": 1.0}}))
    with pytest.raises(ValueError, match="markers"):
        Y.load_weights(bad)
    with pytest.raises(ValueError, match="weights without"):
        Y.make_evaluate({"rings": 1.0})
    with pytest.raises(ValueError, match="unknown YINSH evaluation"):
        Y.evaluator("sharp")
    with pytest.raises(ValueError, match="chess has no evaluation named 'tuned'"):
        get_evaluator("chess", "tuned")  # a game without an evaluation module
    with pytest.raises(ValueError, match="unknown Gygès evaluation 'sharp'"):
        get_evaluator("gyges", "sharp")


def test_alphabeta_eval_option_uses_the_tuned_weights():
    s = _state(RECORDED[2][0])
    tuned = make_agent("alphabeta:depth=1,eval=tuned,safe=0").analyse(s.clone())
    hand = make_agent("alphabeta:depth=1,safe=0").analyse(s.clone())
    assert tuned["action"] in s.legal_actions() and hand["action"] in s.legal_actions()
    # depth 1: the value is the evaluation after the best move, in each evaluation's points
    best_tuned = max(_after(s, a, Y.evaluator("tuned")[0]) for a in s.legal_actions())
    best_hand = max(_after(s, a, Y.evaluate) for a in s.legal_actions())
    assert tuned["value"] == pytest.approx(best_tuned) and hand["value"] == pytest.approx(best_hand)
    with pytest.raises(ValueError, match="unknown Gygès evaluation 'sharp'"):
        make_agent("alphabeta:depth=1,eval=sharp").analyse(load_game("gyges").new_initial_state())
    with pytest.raises(ValueError, match="name of an evaluation"):
        make_agent("alphabeta:eval=2")


def _after(state, action, evaluate):
    """White's value after ``action`` and the rest of White's turn at its best (depth 1 searches a whole turn)."""
    s = state.clone()
    s.apply_action(action)
    if not s.is_terminal() and s.current_player() == 0:
        return max(_after(s, b, evaluate) for b in s.legal_actions())
    return evaluate(s)[0] if not s.is_terminal() else (1e6 if s.returns()[0] > 0 else -1e6)


def test_positions_of_a_real_game_start_after_the_placement_with_the_result():
    state = next(tuning.record_games(BOARDSPACE, limit=1))[1]
    x, label = tuning.positions_of_game(state)
    assert label in (0.0, 1.0)
    assert state.returns()[0] == (1.0 if label == 1.0 else -1.0)
    turns = sum(1 for i in range(len(state.history)) if i >= 10)  # upper bound: one per decision
    assert 10 < len(x) <= turns
    fewer, _ = tuning.positions_of_game(state, skip=5)
    assert len(fewer) == len(x) - 5 and np.array_equal(fewer, x[5:])


def test_tuning_on_a_small_subset_is_deterministic_and_lowers_the_log_loss():
    a = tuning.tune(BOARDSPACE, limit=40, selfplay=2)
    b = tuning.tune(BOARDSPACE, limit=40, selfplay=2)
    assert a == b
    r = a["fit"]["results"]
    assert a["fit"]["games"] == 42 and a["fit"]["positions"] > 1000
    assert r["tuned"]["fit"]["log_loss"] < r["hand"]["fit"]["log_loss"]
    assert 0.5 < r["tuned"]["fit"]["accuracy"] <= 1.0
    assert a["weights"]["ring_pending"] == Y.HAND_WEIGHTS["ring_pending"]  # never at a turn start: kept
    assert all(w >= 0 for f, w in a["weights"].items() if f != "tempo")  # signs as today's


def test_fixed_features_keep_todays_weights():
    a = tuning.tune(BOARDSPACE, limit=30, fix=("three", "four"))
    assert a["weights"]["three"] == Y.HAND_WEIGHTS["three"] and a["weights"]["four"] == Y.HAND_WEIGHTS["four"]
    assert a["weights"]["markers"] != Y.HAND_WEIGHTS["markers"] and a["fit"]["fixed"] == ["four", "three"]
    with pytest.raises(ValueError, match="unknown feature"):
        tuning.tune(BOARDSPACE, limit=30, fix=("fives",))


def test_fit_keeps_the_lower_bounds():
    rng = np.random.default_rng(1)
    x = rng.normal(size=(5000, 2))
    y = (rng.random(5000) < 1 / (1 + np.exp(-x @ np.array([1.0, -0.8])))).astype(float)
    free = tuning.fit_weights(x, y, np.zeros(2), l2=0.0)
    bounded = tuning.fit_weights(x, y, np.zeros(2), l2=0.0, lower=np.array([-np.inf, 0.0]))
    assert free[1] < -0.5 and bounded[1] == 0.0 and bounded[0] == pytest.approx(1.0, abs=0.15)


def test_fit_recovers_known_logistic_weights():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(20_000, 3))
    true = np.array([1.5, -0.5, 0.0])
    y = (rng.random(20_000) < 1 / (1 + np.exp(-x @ true))).astype(float)
    beta = tuning.fit_weights(x, y, np.zeros(3), l2=0.0)
    assert np.allclose(beta, true, atol=0.06)
    k = tuning.fit_scale(x @ true * 100, y)
    assert k == pytest.approx(0.01, rel=0.05)


def test_tune_command(tmp_path):
    from click.testing import CliRunner

    from ringgames.cli import main

    out = tmp_path / "w.json"
    r = CliRunner().invoke(main, ["tune", "yinsh", "--games", str(BOARDSPACE), "--limit", "25", "--out", str(out)])
    assert r.exit_code == 0, r.output
    assert "held-out log-loss" in r.output and "tuned weights" in r.output
    assert set(Y.load_weights(out)["weights"]) == set(Y.FEATURES)
    saved = tmp_path / "saved"
    r = CliRunner().invoke(main, ["match", "yinsh", "greedy", "random", "--games", "3", "--save", str(saved)])
    assert r.exit_code == 0, r.output
    r = CliRunner().invoke(main, ["tune", "yinsh", "--games", str(BOARDSPACE), "--limit", "25", "--games", str(saved)])
    assert r.exit_code == 0, r.output
    assert "28 games (25 records from boardspace-2005; 3 records from saved)" in r.output
    empty = tmp_path / "none"
    empty.mkdir()
    r = CliRunner().invoke(main, ["tune", "yinsh", "--games", str(empty)])
    assert r.exit_code == 1 and "no game records" in r.output


def test_level_with_the_tuned_evaluation():
    from ringgames.ai.levels import BASELINES, LEVELS, LevelAgent

    s = _state(RECORDED[2][0])
    lv = make_agent("level:5,scale=0.05,eval=tuned,seed=3")
    assert lv.agent_for("yinsh").eval_name == "tuned" and lv.agent_for("yinsh").time_limit == pytest.approx(0.25)
    assert lv.choose(s) in s.legal_actions()
    assert make_agent("level:5").agent_for("yinsh").eval_name == ""
    assert make_agent("baseline:5").agent_for("yinsh").eval_name == ""
    # level 5 keeps the hand-set weights: the tuned ones lost the SPRT (docs/ai.md)
    assert LEVELS["yinsh"][5] == "search:time=5" and BASELINES["yinsh"][5] == "alphabeta:time=5"
    with pytest.raises(ValueError, match="searching levels"):
        LevelAgent(2, eval="tuned").agent_for("yinsh")
    # the compiled-MCTS levels of RINGS with 4-6 players take it too (RINGS's weights fitted on self-play)
    uct = LevelAgent(5, eval="tuned", scale=0.01).agent_for("rings", 4)
    assert uct.eval_name == "tuned" and uct.c == 0.2
    with pytest.raises(ValueError, match="name of an evaluation"):
        make_agent("level:5,eval=1")
