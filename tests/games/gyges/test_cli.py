"""`ringgames play gyges` through a pipe, `ringgames replay`, `ringgames bench gyges`."""

import json
import subprocess
import sys

from click.testing import CliRunner

from ringgames.cli import main
from ringgames.records import load_file


def run(args, stdin=""):
    return subprocess.run([sys.executable, "-m", "ringgames", *args], input=stdin, capture_output=True, text=True, timeout=120)


def test_play_through_a_pipe(tmp_path):
    out = tmp_path / "g.rgn"
    r = run(
        ["play", "gyges", "--north", "random", "--seed", "3", "--setup", "321123,123321", "--save", str(out)],
        "c1\nc1-c3\nC1-B1-C2\n",
    )
    assert r.returncode == 1, r.stderr  # input ended before the game did
    assert "[ North's goal: South wins here ]" in r.stdout and "[ South's goal: North wins here ]" in r.stdout
    assert "6  1  2  3  3  2  1  6" in r.stdout and "1  3  2  1  1  2  3  1" in r.stdout
    assert "'c1' is not a complete action; choose one of: c1-b1-a2 c1-c2 c1-d1-d2" in r.stdout
    assert "illegal: no legal path c1-c3" in r.stdout and "legal: a1-b1(a1)" in r.stdout
    assert "north plays " in r.stdout
    s = load_file(out)[0].replay()
    assert s.action_strings()[:3] == ["321123", "123321", "c1-c2"] and len(s.history) == 4


def test_play_setup_by_hand_and_resign():
    r = CliRunner().invoke(main, ["play", "gyges", "--north", "random", "--seed", "1"], input="3211\n321123\nresign\n")
    assert r.exit_code == 0, r.output
    assert "South to place a set on row 1" in r.output
    assert "'3211' is not a complete action; choose one of: 321123 321132" in r.output
    assert "6  1  2  1  3  2  3  6" in r.output  # North's random set
    assert "north plays " in r.output and "Result: north wins (resign)" in r.output


def test_random_against_random_to_the_end_then_replay(tmp_path):
    out = tmp_path / "r.rgn"
    r = CliRunner().invoke(
        main, ["play", "gyges", "--south", "random", "--north", "random", "--seed", "4", "--setup", "random,random", "--save", str(out)]
    )
    assert r.exit_code == 0, r.output
    last = r.output.strip().splitlines()[-2]
    assert last.startswith("Result: ") and ("wins (goal)" in last or "draw (repetition)" in last)
    text = out.read_text()
    body = [x for x in text.splitlines() if x and not x.startswith("[")]
    assert body[0].split()[1].isdigit() and body[1].split()[1].isdigit()  # the two arrangements
    rr = run(["replay", "--json", str(out)])
    assert rr.returncode == 0, rr.stderr
    row = json.loads(rr.stdout.strip().splitlines()[-1])
    assert row["game"] == "gyges" and row["moves"] == len(body) - 2
    assert row["winner"] == load_file(out)[0].tags["Result"]


def test_replay_reports_a_bad_move(tmp_path):
    p = tmp_path / "bad.rgn"
    p.write_text('[Game "gyges"]\n\n1. 321123\n2. 123321\n3. c1-c4\n')
    r = run(["replay", str(p)])
    assert r.returncode == 1 and "turn 3" in r.stderr and "no legal path c1-c4" in r.stderr


def test_bench_gyges():
    r = CliRunner().invoke(main, ["bench", "gyges", "--json", "--seconds", "0.3"])
    assert r.exit_code == 0, r.output
    row = json.loads(r.output.strip().splitlines()[-1])
    assert row["game"] == "gyges" and row["playouts_per_s"] > 0
    assert (row["perft_depth"], row["perft_nodes"]) == (2, 50345)
