"""The shipped puzzles: every one re-verifies by search; the generator finds a known puzzle in a real game; attempts
are judged by the rules."""

from __future__ import annotations

import time
from collections import Counter

import pytest

from ringgames import puzzles as pz
from ringgames import records


@pytest.fixture(scope="module")
def shipped():
    return pz.load()


def test_the_shipped_set_has_at_least_30_puzzles_per_game_with_unique_ids(shipped):
    counts = Counter(p.game for p in shipped)
    assert all(counts[g] >= 30 for g in ("yinsh", "gyges", "rings")), counts
    assert len({p.id for p in shipped}) == len(shipped)
    assert {p.theme for p in shipped} >= {"row", "safe", "goal1", "goal2", "chain"}
    assert all(600 <= p.rating <= 2400 for p in shipped)


def test_every_shipped_puzzle_reverifies(shipped):
    t = time.perf_counter()
    bad = {p.id: pz.verify(p) for p in shipped}
    bad = {k: v for k, v in bad.items() if v}
    assert not bad, bad
    print(f"{len(shipped)} puzzles verified in {time.perf_counter() - t:.1f} s")


def test_verify_catches_a_wrong_solution_and_a_wrong_answer_count(shipped):
    p = next(p for p in shipped if p.theme == "row" and p.answers == 1)
    state = p.state()
    wrong = next(a for a in state.legal_actions() if a not in pz.answers(state, "row"))
    broken = pz.Puzzle(**{**p.__dict__, "solution": [state.action_to_string(wrong)]})
    assert any("does not solve" in x for x in pz.verify(broken))
    assert any("first moves solve it" in x for x in pz.verify(pz.Puzzle(**{**p.__dict__, "answers": 3})))


def test_the_generator_finds_a_known_puzzle_in_a_real_game(shared):
    name = "U!Y-Dumbot-player012-2005-07-19-2129.sgf"
    (rec,) = records.load_file(shared / "data" / "yinsh" / "boardspace-2005" / name)
    found = list(pz.yinsh_puzzles_of_record(rec.replay(), name))
    p = next(p for p in found if p.source == f"{name} ply 64")
    # White to move: g4-d1 completes the row d3-h3 (the only move that makes a row of 19), then a ring goes
    assert p.to_move == 0 and p.solution == ["g4-d1", "xd3-h3", "xc3"] and p.answers == 1 and p.legal == 19
    assert p.position.startswith("4/b1b4/1BWB4/") and not pz.verify(p)


@pytest.mark.parametrize("theme", ["row", "safe", "goal1", "chain"])
def test_judge_accepts_the_solution_and_refuses_another_move(shipped, theme):
    p = next(p for p in shipped if p.theme == theme and p.answers == 1)
    assert pz.judge(p, p.solution[:1]).correct is True
    state = p.state()
    good = set(pz.answers(state, theme))
    other = next(a for a in state.legal_actions() if a not in good and state.action_to_string(a) != "pass")
    j = pz.judge(p, [state.action_to_string(other)])
    assert j.done and j.correct is False


def test_judge_plays_the_defence_of_a_two_move_puzzle(shipped):
    p = next(p for p in shipped if p.theme == "goal2")
    j = pz.judge(p, p.solution[:1])
    assert not j.done and j.reply == [p.solution[1]] and p.solution[2] in j.legal
    j = pz.judge(p, [p.solution[0], p.solution[2]])
    assert j.done and j.correct is True
    with pytest.raises(pz.PuzzleError, match="decided after 2 moves"):
        pz.judge(p, p.solution * 2)
    with pytest.raises(pz.PuzzleError):
        pz.judge(p, ["z9-z9"])


def test_build_is_rerunnable_and_the_cli_verifies_what_it_wrote(shared, tmp_path):
    from click.testing import CliRunner

    from ringgames.cli import main

    data = shared / "data" / "yinsh"
    a, meta = pz.build(games=4, selfplay=0, per_game=5, data_dir=data)
    b, _ = pz.build(games=4, selfplay=0, per_game=5, data_dir=data)
    assert [p.id for p in a] == [p.id for p in b] and a and meta["counts"] == {"yinsh": len(a)}
    out = tmp_path / "p.json"
    r = CliRunner().invoke(main, ["puzzles", "build", "--games", "4", "--selfplay", "0", "--per-game", "5",
                                  "--data", str(data), "--out", str(out)])
    assert r.exit_code == 0, r.output
    assert [p.id for p in pz.load(out)] == [p.id for p in a]
    r = CliRunner().invoke(main, ["puzzles", "verify", str(out)])
    assert r.exit_code == 0 and f"{len(a)} of {len(a)} puzzles verify" in r.output
    broken = pz.load(out)
    broken[0].answers += 1
    pz.save(broken, out)
    r = CliRunner().invoke(main, ["puzzles", "verify", str(out)])
    assert r.exit_code == 1 and broken[0].id in r.output
