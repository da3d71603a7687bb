"""`ringgames strength`: a ledger of games, resumable, summarised."""

import json

from click.testing import CliRunner

from ringgames.ai.strength import ledger_table, pairings, read_ledger
from ringgames.cli import main


def test_pairings_of_a_level_are_random_and_the_level_below():
    ps = pairings("yinsh", [1, 2], scale=1.0)
    assert [(p["level"], p["opponent"], p["target"]) for p in ps] == [
        (1, "random", None), (2, "random", 0.9), (2, "level 1", 0.6)]
    assert ps[2]["a"] == "greedy" and ps[2]["b"] == "greedy:eval=0"


def test_strength_appends_games_and_resumes(tmp_path):
    ledger, out = tmp_path / "r.jsonl", tmp_path / "r.md"
    args = ["strength", "--game", "yinsh", "--levels", "1", "--opponents", "random", "--seed", "3",
            "--ledger", str(ledger), "--out", str(out)]
    r = CliRunner().invoke(main, args + ["--games", "2"])
    assert r.exit_code == 0, r.output
    recs = read_ledger(ledger)
    assert [(x["game"], x["a"], x["b"], x["index"]) for x in recs] == [
        ("yinsh", "greedy:eval=0", "random", 0), ("yinsh", "greedy:eval=0", "random", 1)]
    assert recs[0]["seats"] == ["greedy:eval=0", "random"] and recs[1]["seats"] == ["random", "greedy:eval=0"]
    # a rerun plays nothing; a larger --games plays only the missing game
    r = CliRunner().invoke(main, args + ["--games", "2"])
    assert len(read_ledger(ledger)) == 2
    r = CliRunner().invoke(main, args + ["--games", "3"])
    recs = read_ledger(ledger)
    assert [x["index"] for x in recs] == [0, 1, 2]
    text = out.read_text()
    n_won = sum(1 for x in recs if x["score"] == 1.0)
    assert f"| yinsh | 1 | `greedy:eval=0` | random (`random`) | 3 (3) | {n_won}-" in text


def test_ledger_table_sums_seeds_and_marks_targets(tmp_path):
    recs = [{"game": "g", "level": 3, "opponent": "level 2", "a": "A", "b": "B", "seed": s, "index": i,
             "score": sc, "engine": "python"}
            for s, scores in ((1, [1.0, 1.0, 0.0]), (2, [1.0, 0.5])) for i, sc in enumerate(scores)]
    t = ledger_table(recs)
    row = [line for line in t.splitlines() if line.startswith("| g ")][0]
    assert "| 5 (1,2) | 3-1-1 | 0.700 (" in row and "| met" in row and "python" in row
    assert "provisional (5 of 100 games)" in row
    full = [dict(recs[0], seed=3, index=i) for i in range(100)]
    assert "provisional" not in ledger_table(full)
    recs2 = [dict(r, score=0.0) for r in recs]
    assert "**missed** (< 0.60)" in ledger_table(recs2)
    (tmp_path / "x.jsonl").write_text(json.dumps(recs[0]) + "\n{torn")
    assert len(read_ledger(tmp_path / "x.jsonl")) == 1



def test_ledger_table_gives_no_elo_for_a_single_game():
    rec = {"game": "g", "level": 3, "opponent": "random", "a": "A", "b": "random", "seed": 0, "index": 0,
           "score": 1.0, "engine": "kernel"}
    row = [line for line in ledger_table([rec]).splitlines() if line.startswith("| g ")][0]
    assert row.split(" | ")[7] == "none (1 game)"
    two = [rec, dict(rec, index=1)]
    row = [line for line in ledger_table(two).splitlines() if line.startswith("| g ")][0]
    assert row.split(" | ")[7] == "+191 (-113 … +191) clipped"  # Wilson: 0.342–1

def test_ledger_table_marks_rows_that_are_not_todays_levels():
    recs = [{"game": "yinsh", "level": 3, "opponent": "random", "a": a, "b": "random", "seed": 0, "index": 0,
             "score": 1.0, "engine": "kernel"} for a in ("search:time=0.8", "alphabeta:time=0.5")]
    from ringgames.ai.strength import current_pairings

    cur = current_pairings(["yinsh"])
    assert ("yinsh", 3, "search:time=0.8", "random") in cur
    rows = {line.split("|")[3].strip(): line for line in ledger_table(recs, current=cur).splitlines()
            if line.startswith("| yinsh ")}
    assert "not today's level" not in rows["`search:time=0.8`"]
    assert "met (interval reaches below); not today's level" in rows["`alphabeta:time=0.5`"]


def test_games_without_the_jit_are_labelled_and_warned_about(tmp_path, monkeypatch):
    import ringgames.jit
    from ringgames.ai.strength import _engine

    assert _engine("yinsh") == ("kernel" if ringgames.jit.JIT_ENABLED else "kernel-nojit")
    monkeypatch.setattr(ringgames.jit, "JIT_ENABLED", False)
    assert _engine("yinsh") == "kernel-nojit"
    ledger = tmp_path / "r.jsonl"
    r = CliRunner().invoke(main, ["strength", "--game", "yinsh", "--levels", "1", "--opponents", "random",
                                  "--games", "1", "--ledger", str(ledger), "--out", str(tmp_path / "r.md")])
    assert r.exit_code == 0, r.output
    assert "without numba's JIT" in r.output
    assert read_ledger(ledger)[0]["engine"] == "kernel-nojit"
    assert "| kernel-nojit |" in (tmp_path / "r.md").read_text()
