"""All 878 real boardspace.net games replay to the outcomes in the index (shared/data/yinsh)."""

import csv
import json

import pytest
from click.testing import CliRunner

from ringgames.cli import main
from ringgames.records import Record, RecordError, load_file, loads


@pytest.fixture(scope="module")
def index(shared):
    path = shared / "data" / "yinsh" / "boardspace-2005-index.csv"
    if not path.exists():
        pytest.fail(f"missing {path}")
    rows = list(csv.DictReader(path.open()))
    assert len(rows) == 878
    return rows


def test_every_real_game_replays_to_the_indexed_outcome(shared, index):
    folder = shared / "data" / "yinsh" / "boardspace-2005"
    mismatches = []
    for row in index:
        rec = load_file(folder / row["file"])[0]
        state = rec.replay()
        got = {
            "variant": state.game.variant,
            "white": rec.tags.get("White"),
            "black": rec.tags.get("Black"),
            "winner": state.result_string(),
            "end": state.outcome().reason if state.outcome() else "none",
            "rings_removed_white": str(state.removed[0]),
            "rings_removed_black": str(state.removed[1]),
            "ring_moves": str(state.summary()["ring_moves"]),
        }
        want = {k: row[k] for k in got}
        if got != want:
            mismatches.append((row["file"], want, got))
    assert mismatches == []


def test_cli_replay_json_matches_the_index(shared, index):
    folder = shared / "data" / "yinsh" / "boardspace-2005"
    some = index[:25]
    r = CliRunner().invoke(main, ["replay", "--json", *[str(folder / row["file"]) for row in some]])
    assert r.exit_code == 0, r.output
    lines = [json.loads(line) for line in r.stdout.splitlines() if line.startswith("{")]
    assert len(lines) == 25
    for row, got in zip(some, lines, strict=True):
        assert (got["winner"], got["end"], got["rings_removed_white"], got["ring_moves"]) == (
            row["winner"], row["end"], int(row["rings_removed_white"]), int(row["ring_moves"]))
        assert got["players"] == {"white": row["white"], "black": row["black"]}


def test_real_game_survives_rgn_round_trip(shared, index):
    folder = shared / "data" / "yinsh" / "boardspace-2005"
    for row in index[:40]:
        state = load_file(folder / row["file"])[0].replay()
        text = Record.from_state(state, {"White": row["white"], "Black": row["black"]}).dumps()
        again = loads(text)[0].replay()
        assert again.history == state.history
        assert again.result_string() == row["winner"]


def test_resign_node_ends_the_game_for_the_resigning_seat():
    text = """(;GM[24] VV[2] SU[yinsh] P0[id "a"] P1[id "b"]
; P0[0 Start White]
; P0[1 place wr  H 10]
; P1[3 resign]
)"""
    s = loads(text, "x.sgf")[0].replay()
    assert s.result_string() == "white" and s.outcome().reason == "resign"


def test_modern_format_with_done_tm_pick_drop_and_pass():
    text = """(;GM[24] VV[2] SU[yinsh-blitz] RE[Game won by a] P0[id "a"] P1[id "b"]
; P0[0 Start White]TM[10]
; P0[1 place wr  E 3]TM[20]
; P0[2 Done]
; P1[3 pick br]
; P1[4 drop br]
; P1[5 place br  A 5]
; P1[6 Done]
)"""
    rec = loads(text, "m.sgf")[0]
    assert rec.tags["Variant"] == "blitz" and rec.tags["BoardspaceResult"] == "Game won by a"
    s = rec.replay()
    assert [s.action_to_string(a) for a in s.history] == ["e3", "a5"]


def test_illegal_record_names_the_file_node_and_reason():
    text = """(;GM[24] VV[2] SU[yinsh] P0[id "a"] P1[id "b"]
; P0[0 Start White]
; P0[1 place wr  E 3]
; P1[3 place br  E 3]
)"""
    with pytest.raises(RecordError) as exc:
        loads(text, "bad.sgf")[0].replay()
    msg = str(exc.value)
    assert "bad.sgf" in msg and "node 3" in msg and "not legal" in msg


def test_unknown_command_is_reported_with_its_node():
    text = "(;GM[24] SU[yinsh]\n; P0[0 Start White]\n; P0[1 fly wr E 3]\n)"
    with pytest.raises(RecordError, match=r"u.sgf: node 2 .*unknown boardspace command"):
        loads(text, "u.sgf")


def test_cli_replay_goes_on_after_a_bad_file_and_exits_nonzero(tmp_path, shared, index):
    bad = tmp_path / "bad.sgf"
    bad.write_text("(;GM[24] SU[yinsh]\n; P0[0 Start White]\n; P0[1 place wr  A 1]\n)")
    good = shared / "data" / "yinsh" / "boardspace-2005" / index[0]["file"]
    r = CliRunner().invoke(main, ["replay", str(bad), str(good)])
    assert r.exit_code == 1
    assert "bad.sgf" in r.stderr and "'a1'" in r.stderr
    assert f"winner={index[0]['winner']}" in r.stdout


def test_gipf_short_and_long_forms_and_opponent_removals():
    from ringgames.games.yinsh.formats import parse_gipf, to_gipf


    # a game reaching a white row, written in short form (row omitted) and in long form
    opening = "1.e3 2.a5 3.b5 4.c6 5.d6 6.e4 7.h7 8.g2 9.g3 10.g8"
    s = parse_gipf(opening)[0].replay()
    long_text = to_gipf(s)
    assert long_text == opening
    # opponent-row removal written before one's own move: "xa5;d3-b3"
    text = opening + " 11.g3-g4 12.a5-a4"
    assert parse_gipf(text)[0].replay().summary()["ring_moves"] == 2
    with pytest.raises(RecordError, match="move 12"):
        parse_gipf(opening + " 11.g3-g4 12.a5-a1")
    with pytest.raises(RecordError, match="expected move number 3"):
        parse_gipf("1.e3 2.a5 4.b5")


def test_gipf_short_form_row_is_resolved_when_unambiguous():
    # play a random game until White removes a row, then write it in short form
    import random

    from ringgames import load_game
    from ringgames.games.yinsh.formats import parse_gipf, to_gipf

    for seed in range(200):
        rng = random.Random(seed)
        s = load_game("yinsh").new_initial_state()
        while not s.is_terminal() and not (s.phase == "row" and len(s.legal_actions()) == 1):
            s.apply_action(rng.choice(s.legal_actions()))
        if not s.is_terminal():
            break
    s.apply_action(s.legal_actions()[0])  # the row
    s.apply_action(s.legal_actions()[0])  # a ring
    long_text = to_gipf(s)
    short_text = " ".join(
        (lambda n, body: n + "." + ";".join(
            "x" + p.split("x")[-1] if p.startswith("x") and "-" in p else p for p in body.split(";")))(*tok.split("."))
        for tok in long_text.split()
    )
    assert short_text != long_text
    assert parse_gipf(short_text)[0].replay().history == s.history
