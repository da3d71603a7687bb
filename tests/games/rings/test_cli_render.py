"""RINGS through the generic command line (perft, replay, play) and the terminal drawing."""

import json

from click.testing import CliRunner

from ringgames.cli import main
from ringgames.records import Record

from .helpers import make


def run(args, input=None):
    res = CliRunner().invoke(main, args, input=input)
    assert res.exit_code == 0, res.output
    return res.output.strip().splitlines()


def test_perft_cli():
    assert run(["perft", "rings", "2"])[-1] == "46873"
    assert run(["perft", "rings", "1", "--players", "4", "--moves", "K12 pass A11"])[-1] == "215"


def test_play_random_seats_to_the_end_and_replay(tmp_path):
    path = tmp_path / "g.rgn"
    out = run(["play", "rings", "--players", "3", "--seat", "random", "--seat", "random", "--seat", "random",
               "--seed", "4", "--save", str(path)])  # fmt: skip
    assert any(line.startswith("Result:") and "(passes)" in line for line in out)
    assert any(line.startswith("scores: red") for line in out)
    rows = run(["replay", "--json", str(path)])
    row = json.loads(rows[-1])
    state = __import__("ringgames.records", fromlist=["load_file"]).load_file(path)[0].replay()
    assert row["scores"] == state.scores() and len(row["scores"]) == 3
    assert row["winners"] == list(state.outcome().winners)
    best = max(row["scores"])
    assert row["winners"] == [i for i, v in enumerate(row["scores"]) if v == best]
    text = run(["replay", str(path)])[-1]
    assert f"scores={row['scores']}" in text


def test_play_human_hot_seat():
    out = run(["play", "rings", "--players", "2"], input="K12\nzz\nA11\nquit\n")
    assert any("red to play>" in line for line in out)
    assert any("illegal" in line or "not" in line for line in out)
    assert "1. K12" in out and "2. A11" in out
    assert '[Red "human"]' in out and '[Blue "human"]' in out  # the printed record names the seats, as --save does


def test_render_shows_stones_rings_control_and_scores():
    s = make(2, {0: "L11 M11 N12 M13 L13 K12 L3", 1: "A11 B10"})
    pic = s.render().splitlines()
    row12 = next(line for line in pic if line.startswith(" 12 "))
    assert "r*" in row12  # red ring LM12 at its centre
    row11 = next(line for line in pic if line.startswith(" 11 "))
    assert row11.count("R") == 2 and "B" in row11
    assert any(line.startswith("scores: red ") and "blue 0" in line for line in pic)
    assert "red to move" in pic[-1]
    s.play("pass")
    assert "blue to move" in s.render()
    s2 = make(2, {0: "L11 M11 N12 M13 L13", 1: "K12"})
    s2.play("pass")
    assert "may convert: xLM12" in s2.render()


def test_record_lines_are_turns():
    s = make(2, {0: "L11 M11 N12 M13 L13 N14", 1: "K12 M15"})
    for t in ["pass", "xLM12", "end", "A11"]:
        s.play(t)
    rec = Record.from_state(s)
    assert [t.tokens for t in rec.turns] == [["pass", "xLM12"], ["A11"]]
