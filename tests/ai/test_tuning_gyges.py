"""The Gygès evaluation's features and named weights, and its tuning on self-play games ("Texel" tuning:
``ringgames tune gyges``, issue #35)."""

import random

import pytest
from click.testing import CliRunner

from ringgames import load_game
from ringgames.ai import tuning_gyges as T
from ringgames.ai.evaluation import get_evaluator
from ringgames.ai.evaluation import gyges as G
from ringgames.cli import main


def _random_states(games: int = 4, seed: int = 1):
    rng = random.Random(seed)
    for _ in range(games):
        s = load_game("gyges").new_initial_state()
        while not s.is_terminal():
            if rng.random() < 0.3:
                yield s.clone()
            s.apply_action(rng.choice(s.legal_actions()))


def test_hand_weights_are_today_s_evaluation():
    """The features with the hand weights give the evaluation every level had before the tuning: 800 for a threat of
    the side to move, 350 for the other side's, 15 per approach square, 2 per mobility target, nothing for advance."""
    n = 0
    for s in _random_states():
        sf = G.side_features(s)
        if sf is None:
            assert G.evaluate(s) == [0.0, 0.0]
            continue
        t0, a0, m0, t1, a1, m1 = s.features()
        if s.current_player() == 0:
            old = 15 * (a0 - a1) + 2 * (m0 - m1) + 800 * t0 - 350 * t1
        else:
            old = 15 * (a0 - a1) + 2 * (m0 - m1) + 350 * t0 - 800 * t1
        assert G.evaluate(s) == [old, -old], s.position()
        assert sf[0][2:4] == [a0, m0] and sf[1][2:4] == [a1, m1]
        n += 1
    assert n > 10


def test_advance_is_the_distance_of_each_side_s_nearest_row():
    s = load_game("gyges").state_from_position("000000/000000/300000/000000/321123/021123 S")
    south, north = G.side_features(s)
    assert south[4] == 2 and north[4] == 0  # South moves from row 3; North's nearest row is its home row 6
    assert south == [0.0, 0.0, 0.0, 8.0, 2.0] and north == [0.0, 0.0, 0.0, 43.0, 0.0]
    assert G.evaluate(s) == [2 * (8 - 43), -2 * (8 - 43)]  # today's weights: mobility only here


def test_positions_and_labels_of_a_self_play_game():
    [h] = T.selfplay_histories(1, 2, seed=2, spec="search:depth=1", game="gyges")
    x, y = T.positions_of_game(h)
    s = load_game("gyges").new_initial_state()
    for a in h:
        s.apply_action(a)
    r = s.returns()
    assert x.shape[1] == len(G.FEATURES) and len(y) == len(x) >= 1
    assert set(y.tolist()) == {1.0 if r[0] > r[1] else 0.0 if r[0] < r[1] else 0.5}
    # the positions start after the random decisions: no setup (all twelve pieces on the board)
    assert len(x) <= len(h) - T.OPENING
    with pytest.raises(ValueError, match="do not reach"):
        T.positions_of_game(h[:-1])


def test_tune_on_given_games_is_deterministic_and_predicts_better_than_today_s_weights():
    hist = T.selfplay_histories(40, 2, seed=3, spec="search:depth=1", game="gyges")
    d1 = T.tune(histories=hist)
    assert d1 == T.tune(histories=hist)
    r = d1["fit"]["results"]
    assert r["tuned"]["fit"]["log_loss"] <= r["hand"]["fit"]["log_loss"]
    assert d1["fit"]["games"] == 40 and d1["fit"]["positions"] > 200
    assert set(d1["weights"]) == set(G.FEATURES)
    with pytest.raises(ValueError, match="too few"):
        T.tune(histories=hist[:3])


def test_tune_gyges_command(tmp_path):
    out = tmp_path / "w.json"
    r = CliRunner().invoke(main, ["tune", "gyges", "--selfplay", "10", "--seed", "1", "--spec", "search:depth=1",
                                  "--out", str(out)])
    assert r.exit_code == 0, r.output
    assert "held-out log-loss" in r.output and "tuned weights" in r.output
    data = G.load_weights(out)
    assert data["fit"]["sources"][0].startswith("10 self-play games of search:depth=1")
    r = CliRunner().invoke(main, ["tune", "gyges", "--fix", "approach"])
    assert r.exit_code != 0 and "self-play games only" in r.output


def test_a_malformed_weight_file_is_refused(tmp_path):
    p = tmp_path / "w.json"
    p.write_text('{"weights": {"approach": 1}}')
    with pytest.raises(ValueError, match="needs a number for each of threat_to_move"):
        G.load_weights(p)


#: a play-phase position; a refit that changes gyges_weights.json changes the tuned value
RECORDED_POSITION = "000000/000000/300000/000000/321123/021123 S"


def test_the_shipped_weights_give_the_recorded_values():
    s = load_game("gyges").state_from_position(RECORDED_POSITION)
    data = G.load_weights()
    assert data["weights"] == {"threat_to_move": 2754.864, "threat_waiting": -125.91, "approach": 71.668,
                               "mobility": 5.604, "advance": 126.239}
    south, north = G.side_features(s)
    ev, scale = get_evaluator("gyges", "tuned")
    expect = sum(data["weights"][f] * (a - b) for f, a, b in zip(G.FEATURES, south, north, strict=True))
    assert ev(s)[0] == pytest.approx(expect) and ev(s)[1] == pytest.approx(-expect)
    assert ev(s)[0] == pytest.approx(56.338)  # 5.604 * (8 - 43) + 126.239 * (2 - 0): advance outweighs mobility
    assert scale == pytest.approx(384.112)
    assert get_evaluator("gyges", "hand")[0](s) == G.evaluate(s)
    with pytest.raises(ValueError, match="unknown Gygès evaluation"):
        get_evaluator("gyges", "nope")


def test_level_3_plays_the_tuned_weights_and_levels_4_and_5_today_s():
    """Level 3 is the depth-2 search with the tuned weights (docs/ai.md: the ladder measured with levels 4 and 5 on
    today's weights); on a position where the two weight sets disagree it plays the tuned search's move."""
    from ringgames.ai.agents import make_agent
    from ringgames.ai.levels import spec_for

    assert spec_for("gyges", 3) == "search:depth=2,time=1,min=2,eval=tuned"
    assert "eval=" not in spec_for("gyges", 4) and "eval=" not in spec_for("gyges", 5)
    differ = 0
    for s in _random_states(games=6, seed=5):
        if s.features() is None or s.goal_reachable():
            continue
        level = make_agent("level:3,seed=1").choose(s.clone())
        tuned = make_agent("search:depth=2,min=2,eval=tuned,seed=1").choose(s.clone())
        hand = make_agent("search:depth=2,min=2,seed=1").choose(s.clone())
        assert level == tuned, s.position()
        differ += tuned != hand
        if differ >= 2:
            break
    assert differ >= 2


def test_tune_refuses_bad_options_before_playing(tmp_path, monkeypatch):
    """A bad --out, --l2 or --players is refused at once (before minutes of self-play), with a one-line error."""
    def no_games(*args, **kwargs):
        raise AssertionError("self-play started")

    monkeypatch.setattr(T, "tune", no_games)
    cases = [
        (["--out", str(tmp_path / "no" / "such" / "w.json")], "cannot write"),
        (["--l2", "nan"], "--l2 must be a finite number"),
        (["--l2", "inf"], "--l2 must be a finite number"),
        (["--players", "5"], "--players is for RINGS"),
    ]
    for extra, message in cases:
        r = CliRunner().invoke(main, ["tune", "gyges", *extra])
        assert r.exit_code == 2, (extra, r.output)
        assert message in r.output and "Traceback" not in r.output
    assert not (tmp_path / "no").exists()


def test_a_fit_that_anti_predicts_writes_no_file(tmp_path):
    """Ten games of random play: today's weights predict them worse than chance (K < 0), so no file is written."""
    out = tmp_path / "w.json"
    r = CliRunner().invoke(main, ["tune", "gyges", "--selfplay", "10", "--spec", "random", "--out", str(out)])
    assert r.exit_code == 1
    assert "the fitted scale K is -0.000204179" in r.output and "no weight file written" in r.output
    assert not out.exists()
    bad = tmp_path / "bad.json"
    bad.write_text('{"weights": ' + str(G.HAND_WEIGHTS).replace("'", '"') + ', "scale": -4897.65}')
    with pytest.raises(ValueError, match="'scale' must be a number of points above 0"):
        G.load_weights(bad)


def test_level_3_takes_another_evaluation_by_name():
    """level:3 plays eval=tuned; level:3,eval=hand replaces it (not 'eval given twice')."""
    from ringgames.ai.agents import make_agent

    s = load_game("gyges").state_from_position(RECORDED_POSITION)
    for name in ("hand", "tuned"):
        agent = make_agent(f"level:3,eval={name}")
        agent.choose(s.clone())
        assert agent.agent_for("gyges").eval_name == name
    r = CliRunner().invoke(main, ["match", "gyges", "level:3,eval=hand", "random", "--games", "2"])
    assert r.exit_code == 0, r.output


def test_greedy_refuses_a_named_evaluation():
    """greedy's eval= is an on/off switch; eval=tuned used to be taken as 'on' and play today's weights silently."""
    from ringgames.ai.agents import make_agent

    for bad in ("tuned", "nope", "2"):
        with pytest.raises(ValueError, match="greedy eval= is 1"):
            make_agent(f"greedy:eval={bad}")
    assert make_agent("greedy:eval=0").use_eval is False and make_agent("greedy").use_eval is True
