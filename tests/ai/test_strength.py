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
    assert ("yinsh", 3, "search:time=0.8", "random", 2) in cur
    rows = {line.split("|")[3].strip(): line for line in ledger_table(recs, current=cur).splitlines()
            if line.startswith("| yinsh ")}
    assert "not today's level" not in rows["`search:time=0.8`"]
    assert "met (interval reaches below); not today's level" in rows["`alphabeta:time=0.5`"]


def test_ledger_table_tells_todays_levels_at_a_scale_from_earlier_levels():
    from ringgames.ai.levels import spec_for
    from ringgames.ai.strength import current_pairings, level_scale

    def rec(a, b, opponent, level=4, players=2):
        return {"game": "rings", "level": level, "opponent": opponent, "a": a, "b": b, "seed": 0, "index": 0,
                "score": 1.0, "won": 1.0, "engine": "kernel", "players": players}

    cur = current_pairings(["rings"])
    recs = [rec(spec_for("rings", 4, 0.25), spec_for("rings", 3, 0.25), "level 3"),  # today's, scaled
            rec(spec_for("rings", 4, 0.25), spec_for("rings", 3, 0.1), "level 3", players=3),  # unequal scales
            rec("uct:time=0.05,c=0.5", "baseline:4,scale=0.1", "baseline:4,scale=0.1", level=3, players=4),
            rec("uct:time=0.2,c=0.2", "uct:time=0.05,c=0.5", "level 3", players=4),  # level 4 before 6 December
            rec("uct:time=0.1,c=0.2", "uct:time=0.05,c=0.5", "level 3", players=4),  # today's at scale 0.1
            rec("uct:time=0.05,c=0.5", "baseline:4,scale=0.2", "baseline:4,scale=0.2", level=3, players=4),
            rec(spec_for("rings", 3, 0.1, players=3), "greedy", "level 2", level=3, players=3),  # level 2 has no budget
            rec("search:time=0.05,min=2", "greedy", "level 2", level=3, players=3)]  # level 3 before its cap
    # level 4 before 6 December at scale 0.1 is today's level 4 at scale 0.2, but its level 3 is at 0.1
    assert [level_scale("rings", r["level"], r["a"], r["players"]) for r in recs] == [0.25, 0.25, 0.1, 0.2, 0.1, 0.1, 0.1,
                                                                                     None]
    assert level_scale("rings", 4, "uct:time=0.2", players=4) is None  # c=0.2 missing
    # four players' level 3 before it explored less (c=1), and five players' level 3, which still does
    assert level_scale("rings", 3, "uct:time=0.05", players=4) is None
    assert level_scale("rings", 3, "uct:time=0.05", players=5) == 0.1
    assert level_scale("rings", 5, "baseline:5", players=4) is None and level_scale("nosuch", 3, "x:1") is None
    rows = {(cells[0], cells[2], cells[3]): cells[8] for line in ledger_table(recs, current=cur).splitlines()
            if line.startswith("| rings") for cells in [line[2:].split(" | ")]}
    assert len(rows) == len(recs)
    marks = []
    for r in recs:
        label = "rings" if r["players"] == 2 else f"rings ({r['players']} players)"
        target = [v for (g, a, o), v in rows.items() if g == label and a == f"`{r['a']}`" and f"`{r['b']}`" in o]
        assert len(target) == 1, (r, rows)
        marks.append([m for m in target[0].split("; ") if "today's" in m])
    assert marks[0] == ["today's level at scale 0.25"]
    assert rows["rings", f"`{recs[0]['a']}`", f"level 3 (`{recs[0]['b']}`)"] == (
        "met (interval reaches below); today's level at scale 0.25; provisional (1 of 100 games)")
    assert marks[1:] == [["not today's level"], ["today's level at scale 0.1"], ["not today's level"],
                         ["today's level at scale 0.1"],
                         ["not today's level"],  # the baseline at another scale than the level
                         ["today's level at scale 0.1"], ["not today's level"]]


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


# -- more than two players, issue #35's targets, and the sequential test --------------------------------------------

def test_current_pairings_hold_every_number_of_players_a_game_allows():
    from ringgames.ai.levels import spec_for
    from ringgames.ai.strength import current_pairings

    cur = current_pairings(["rings", "gyges"])
    for n in range(2, 7):
        assert ("rings", 5, spec_for("rings", 5, players=n), spec_for("rings", 4, players=n), n) in cur
    assert ("rings", 5, "uct:time=5,c=0.2,convert=all,quiesce=1", "uct:time=1,c=0.2", 4) in cur
    assert ("rings", 5, "uct:time=5,c=0.2,convert=all,quiesce=1", "uct:time=1,c=0.2", 2) not in cur
    assert {p[4] for p in cur if p[0] == "gyges"} == {2}


def test_a_four_player_pairing_counts_who_won_each_game(tmp_path):
    from ringgames.ai.match import play_game

    ledger, out = tmp_path / "r.jsonl", tmp_path / "r.md"
    r = CliRunner().invoke(main, ["strength", "--game", "rings", "--players", "4", "--levels", "2", "--opponents",
                                  "below", "--games", "2", "--seed", "5", "--ledger", str(ledger), "--out", str(out)])
    assert r.exit_code == 0, r.output
    recs = read_ledger(ledger)
    assert [x["seats"] for x in recs] == [["greedy", "greedy:eval=0"] * 2, ["greedy:eval=0", "greedy"] * 2]
    for x in recs:  # the same game played again gives the recorded result: who won, and the pairwise score
        g = play_game("rings", x["seats"], index=x["index"], seed=5, players=4)
        assert x["players"] == 4 and x["won"] == g.side_for("greedy") and x["score"] == g.score_for("greedy")
        assert x["actions"] == g.actions
    w = sum(x["won"] == 1.0 for x in recs)
    lost = sum(x["won"] == 0.0 for x in recs)
    row = [line for line in out.read_text().splitlines() if line.startswith("| rings (4 players) | 2 |")][0]
    assert f"| 2 (5) | {w}-{2 - w - lost}-{lost} |" in row and "provisional (2 of 100 games)" in row
    assert "not today's level" not in row  # today's 4-player level 2 against level 1
    assert "| rings (4 players) | `greedy:eval=0` | `greedy` | `uct:time=0.5,c=0.5` |" in out.read_text()
    assert "| rings (5–6 players) | `greedy:eval=0` | `greedy` | `uct:time=0.5` |" in out.read_text()
    # the two-player pairing of the same specs is another row, and no game of it was played
    assert not [line for line in out.read_text().splitlines() if line.startswith("| rings | 2 |")]


def test_players_a_game_does_not_take_are_refused(tmp_path):
    r = CliRunner().invoke(main, ["strength", "--game", "yinsh", "--players", "3", "--ledger", str(tmp_path / "r"),
                                  "--out", str(tmp_path / "o")])
    assert r.exit_code == 2 and "yinsh is not played by 3 players" in r.output
    assert not (tmp_path / "r").exists()
    r = CliRunner().invoke(main, ["strength", "--game", "rings", "--levels", "6", "--ledger", str(tmp_path / "r")])
    assert r.exit_code == 2 and "levels are 1–5" in r.output


def test_a_pairing_played_as_a_sequential_test_stops_when_it_decides(tmp_path):
    ledger, out = tmp_path / "r.jsonl", tmp_path / "r.md"
    args = ["strength", "--game", "gyges", "--levels", "2", "--opponents", "random", "--games", "30", "--seed", "2",
            "--sprt", "0,400", "--ledger", str(ledger), "--out", str(out)]
    r = CliRunner().invoke(main, args)
    assert r.exit_code == 0, r.output
    recs = read_ledger(ledger)
    # greedy wins every game against random: 0 against 400 Elo is decided after 5 wins (ai/sprt.py)
    assert [x["score"] for x in recs] == [1.0] * 5 and all(x["sprt"] == [0.0, 400.0, 0.05, 0.05] for x in recs)
    assert "H1 accepted at game 5" in out.read_text()
    row = [line for line in out.read_text().splitlines() if line.startswith("| gyges | 2 |")][0]
    assert "SPRT 0/400 (α 0.05, β 0.05, seed 2): H1 accepted at game 5, LLR 2.99 |" in row and "provisional" not in row
    # a rerun replays the test over the ledger and plays nothing
    r = CliRunner().invoke(main, args)
    assert r.exit_code == 0 and "decided by the games in" in r.output and len(read_ledger(ledger)) == 5
    # other bounds are another test: it starts from no game of its own (the games already played are not replayed)
    r = CliRunner().invoke(main, args[:-4] + ["--sprt", "0,200", "--games", "9", "--ledger", str(ledger), "--out", str(out)])
    assert r.exit_code == 0, r.output
    recs = read_ledger(ledger)
    assert [x["index"] for x in recs] == [0, 1, 2, 3, 4, 5, 6, 7, 8]
    assert "SPRT 0/200 (α 0.05, β 0.05, seed 2): running after 4 games" in out.read_text()
    assert "5 games of this pairing and seed in" in r.output and "played outside this test" in r.output
    bad = CliRunner().invoke(main, args[:-4] + ["--sprt", "300,100", "--ledger", str(ledger)])
    assert bad.exit_code == 2 and "elo1 > elo0" in bad.output


def test_ledger_table_counts_multiplayer_games_by_who_won_and_marks_the_issues_targets():
    base = {"game": "rings", "level": 5, "opponent": "baseline:5,scale=0.05", "a": "A", "b": "baseline:5,scale=0.05",
            "seed": 1, "engine": "kernel", "players": 4}
    # pairwise scores would say 0.75 for a game one of A's two seats won; who won says 1
    recs = [dict(base, index=i, score=0.75, won=1.0) for i in range(8)] + [dict(base, index=8, score=0.5, won=0.5),
                                                                         dict(base, index=9, score=0.25, won=0.0)]
    row = [line for line in ledger_table(recs).splitlines() if line.startswith("| rings (4 players) | 5 |")][0]
    assert "| 10 (1) | 8-1-1 | 0.850 (" in row and "| met (interval reaches below); provisional (10 of 100 games)" in row
    low = [dict(r, won=0.0) if r["index"] < 3 else r for r in recs]
    assert "**missed** (< 0.80)" in ledger_table(low)
    three = [dict(r, level=3, opponent="baseline:4", b="baseline:4", won=1.0 if r["index"] < 6 else 0.0) for r in recs]
    assert "**missed** (< 0.65)" in ledger_table(three)  # 0.60 of the games
    two = [dict(r, players=2) for r in recs]
    two_row = [line for line in ledger_table(two).splitlines() if line.startswith("| rings | 5 |")][0]
    assert "| 10 (1) | 0-10-0 | 0.675 (" in two_row  # two players: the score itself


# -- a ledger that was cut, concatenated or edited by hand; options that would lose data -----------------------------

def _game_line(**kw):
    rec = {"game": "gyges", "level": 2, "opponent": "random", "a": "greedy", "b": "random", "seed": 7, "index": 0,
           "score": 1.0, "engine": "kernel"}
    return json.dumps({**rec, **kw})


def test_bad_and_duplicate_ledger_lines_are_skipped_and_named(tmp_path):
    from ringgames.ai.strength import record_problem

    ledger, out = tmp_path / "r.jsonl", tmp_path / "r.md"
    lines = [_game_line(index=0), _game_line(index=1, score=0.0), _game_line(index=0),  # line 3: line 1 again
             _game_line(index=2, players="4"), _game_line(index=3, sprt="0,200"), "[1, 2]",
             _game_line(index=4, score=2), _game_line(index=5, level="2"), _game_line(index=6, sprt=[200, 0, 0.05, 0.05]),
             _game_line(index=7, players=4, score=0.75), '{"game": "gyg']
    ledger.write_text("\n".join(lines))
    problems: list = []
    recs = read_ledger(ledger, problems)
    assert [r["index"] for r in recs] == [0, 1]
    assert [n for n, _ in problems] == [3, 4, 5, 6, 7, 8, 9, 10, 11]
    assert problems[0][1] == "the same game as line 1"
    assert "players must be a whole number from 2 to 6" in problems[1][1]
    assert "sprt must be 4 numbers" in problems[2][1] and problems[3][1] == "not a JSON object"
    assert "score must be a number from 0 to 1" in problems[4][1] and "level must be a whole number" in problems[5][1]
    assert "elo1 > elo0" in problems[6][1] and "won must be 0, 0.5 or 1" in problems[7][1]
    assert problems[8][1] == "not JSON (a torn line?)"
    assert record_problem({"x": 1}) == "game must be a string, not 'None'"
    r = CliRunner().invoke(main, ["strength", "--summary-only", "--ledger", str(ledger), "--out", str(out)])
    assert r.exit_code == 0, r.output
    assert "warning: 9 ledger line(s) skipped (not counted): line 3: the same game as line 1; line 4:" in r.output
    row = [line for line in out.read_text().splitlines() if line.startswith("| gyges | 2 |")][0]
    assert "| 2 (7) | 1-0-1 | 0.500 (" in row and "| +0 (" in row  # never "-0"
    assert "**9 ledger line(s) skipped (not counted)" in out.read_text()


def test_a_torn_last_line_does_not_swallow_the_next_game(tmp_path):
    ledger, out = tmp_path / "r.jsonl", tmp_path / "r.md"
    ledger.write_text('{"game": "gyges", "lev')  # a write cut short
    r = CliRunner().invoke(main, ["strength", "--game", "gyges", "--levels", "2", "--opponents", "random", "--games",
                                  "2", "--seed", "7", "--ledger", str(ledger), "--out", str(out)])
    assert r.exit_code == 0, r.output
    assert [x["index"] for x in read_ledger(ledger)] == [0, 1]
    r = CliRunner().invoke(main, ["strength", "--game", "gyges", "--levels", "2", "--opponents", "random", "--games",
                                  "2", "--seed", "7", "--ledger", str(ledger), "--out", str(out)])
    assert "2 games already in" in r.output and len(read_ledger(ledger)) == 2


def test_options_that_would_lose_data_or_mean_nothing_are_refused(tmp_path):
    ledger, out = tmp_path / "r.jsonl", tmp_path / "r.md"
    ledger.write_text(_game_line() + "\n")
    base = ["strength", "--game", "gyges", "--levels", "2", "--ledger", str(ledger)]
    r = CliRunner().invoke(main, base + ["--summary-only", "--out", str(ledger)])
    assert r.exit_code == 2 and "would overwrite the ledger" in r.output
    assert read_ledger(ledger)[0]["score"] == 1.0
    r = CliRunner().invoke(main, base + ["--out", str(tmp_path / "r.jsonl" / "x.md")])
    assert r.exit_code == 2 and "cannot write" in r.output
    r = CliRunner().invoke(main, base + ["--out", str(out), "--alpha", "0.1"])
    assert r.exit_code == 2 and "give --sprt too" in r.output
    r = CliRunner().invoke(main, base + ["--out", str(out), "--summary-only", "--sprt", "0,50"])
    assert r.exit_code == 2 and "not with --summary-only" in r.output
    r = CliRunner().invoke(main, base + ["--out", str(out), "--against", "greedy"])
    assert r.exit_code == 2 and "is the spec of a level measured here" in r.output
    r = CliRunner().invoke(main, base + ["--out", str(out), "--against", "alphabeta:eval=nosuch,time=0.01"])
    assert r.exit_code == 2 and "--against" in r.output and "nosuch" in r.output
    for spec in ("baseline:4", "level:3", " Level:1 "):  # its full budget against levels at a share of theirs
        r = CliRunner().invoke(main, base + ["--out", str(out), "--against", spec, "--scale", "0.1"])
        assert r.exit_code == 2 and "would think at its full time budget" in r.output, r.output
        assert f"give '{spec.strip()},scale=0.1' for equal budgets" in r.output
    for bad in ("0", "-1", "nan"):
        r = CliRunner().invoke(main, base + ["--out", str(out), "--scale", bad])
        assert r.exit_code == 2 and "scale must be a number above 0" in r.output
    assert len(ledger.read_text().splitlines()) == 1 and not out.exists()


def test_against_a_level_with_its_own_scale_plays(tmp_path):
    ledger, out = tmp_path / "r.jsonl", tmp_path / "r.md"
    r = CliRunner().invoke(main, ["strength", "--game", "gyges", "--levels", "2", "--against", "baseline:1,scale=1",
                                  "--scale", "0.5", "--games", "1", "--ledger", str(ledger), "--out", str(out)])
    assert r.exit_code == 0, r.output
    (rec,) = read_ledger(ledger)
    assert (rec["a"], rec["b"], rec["opponent"]) == ("greedy", "baseline:1,scale=1", "baseline:1,scale=1")


def test_with_two_jobs_a_decided_test_leaves_at_most_the_other_running_game(tmp_path):
    ledger, out = tmp_path / "r.jsonl", tmp_path / "r.md"
    r = CliRunner().invoke(main, ["strength", "--game", "gyges", "--levels", "2", "--opponents", "random", "--games",
                                  "40", "--seed", "4", "--sprt", "0,400", "--jobs", "2", "--ledger", str(ledger),
                                  "--out", str(out)])
    assert r.exit_code == 0, r.output
    assert len(read_ledger(ledger)) in (5, 6)  # decided at the 5th win; one game may still have been running
    assert "H1 accepted at game 5" in out.read_text()


def test_an_against_row_of_todays_level_is_todays():
    from ringgames.ai.strength import current_pairings

    rec = {"game": "gyges", "level": 5, "opponent": "baseline:5", "a": "search:time=5,min=3,book=1", "b": "baseline:5",
           "seed": 0, "index": 0, "score": 1.0, "engine": "kernel"}
    cur = current_pairings(["gyges"])
    row = [line for line in ledger_table([rec], current=cur).splitlines() if line.startswith("| gyges ")][0]
    assert "not today's level" not in row and "provisional (1 of 100 games)" in row
    old = dict(rec, a="search:time=4,min=3")
    row = [line for line in ledger_table([old], current=cur).splitlines() if line.startswith("| gyges ")][0]
    assert "not today's level" in row


def test_a_random_opening_is_a_pairing_of_its_own_shared_by_both_colours(tmp_path):
    ledger, out = tmp_path / "r.jsonl", tmp_path / "r.md"
    base = ["strength", "--game", "gyges", "--levels", "2", "--opponents", "below", "--seed", "5", "--games", "4",
            "--ledger", str(ledger), "--out", str(out)]
    assert CliRunner().invoke(main, base).exit_code == 0
    r = CliRunner().invoke(main, base + ["--opening", "1"])
    assert r.exit_code == 0, r.output
    recs = read_ledger(ledger)
    plain = [x for x in recs if "opening" not in x]
    opened = sorted((x for x in recs if x.get("opening") == 1), key=lambda x: x["index"])
    assert len(plain) == 4 and [x["index"] for x in opened] == [0, 1, 2, 3]  # not taken for the plain games
    # the same random arrangement in games 2j and 2j+1 (colours swapped), as match --opening gives it
    from ringgames.ai.match import play_game

    firsts = [play_game("gyges", x["seats"], x["index"], seed=5, opening=1, opening_key=x["index"] // 2).history[0]
              for x in opened]
    assert firsts[0] == firsts[1] and firsts[2] == firsts[3] and firsts[0] != firsts[2]
    assert [x["score"] for x in opened] == [
        play_game("gyges", x["seats"], x["index"], seed=5, opening=1, opening_key=x["index"] // 2).score_for(x["a"])
        for x in opened]
    # a rerun with the opening plays nothing more; the report has a row for each
    CliRunner().invoke(main, base + ["--opening", "1"])
    assert len(read_ledger(ledger)) == 8
    text = out.read_text()
    assert "| gyges | 2 | `greedy` | level 1 (`greedy:eval=0`) | 4 (5) |" in text
    assert "| gyges | 2 | `greedy` | level 1, the first 1 decision(s) at random (`greedy:eval=0`) | 4 (5) |" in text
    bad = dict(opened[0], opening=-1)
    from ringgames.ai.strength import record_problem

    assert "opening must be a whole number from 0" in record_problem(bad)
    assert "opening must be at most 40" in record_problem(dict(opened[0], opening=10**30))
