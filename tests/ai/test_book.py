"""The Gygès setup book (ai/book.py, ``ringgames book``) and the agents' ``book=1``."""

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from ringgames import load_game
from ringgames.ai import book as B
from ringgames.ai.agents import make_agent
from ringgames.cli import main


def _start():
    return load_game("gyges").new_initial_state()


def _after(arrangement):
    s = _start()
    s.apply_action(s.string_to_action(arrangement))
    return s


@pytest.fixture(scope="module")
def shipped():
    return json.loads(B.BOOK_FILES["gyges"].read_text())


@pytest.fixture(scope="module")
def small():
    """A book of depth-2 searches, built twice: in one process and in two."""
    return B.build(depth=2, jobs=1), B.build(depth=2, jobs=2)


def test_the_shipped_book_covers_the_setup_and_mirrors(shipped):
    s = _start()
    arrangements = [s.action_to_string(a) for a in s.legal_actions()]
    assert shipped["depth"] == B.DEPTH == 6 and shipped["spec"].startswith("search:depth=6,min=6")
    moves = shipped["moves"]
    assert len(moves) == 91 and s.position() in moves
    for a in arrangements:
        entry = moves[_after(a).position()]
        mirrored = moves[_after(a[::-1]).position()]
        if a != a[::-1]:
            assert mirrored == {"action": entry["action"][::-1], "value": entry["value"]}  # files a<->f
    # South's arrangement is the one whose best reply is worst for North, its value the negation.
    north = {a: moves[_after(a).position()]["value"] for a in arrangements}
    south = moves[s.position()]
    assert south["value"] == -min(north.values()) and north[south["action"]] == min(north.values())
    assert len(set(north.values())) > 5  # the searches tell the arrangements apart
    loaded = B.load_book("gyges")
    assert loaded["moves"][s.position()] == (south["action"], south["value"])


def test_build_is_a_search_per_arrangement_and_the_same_for_any_jobs(small):
    one, two = small
    assert one["moves"] == two["moves"] and one["build"]["nodes"] == two["build"]["nodes"]
    assert one["build"]["searches"] == 48
    for arrangement in ("123321", "113223", "132231"):  # searched: two palindromes and the first of a mirror pair
        s = _after(arrangement)
        r = make_agent("search:depth=2,min=2,seed=0,tt=2000000").analyse(s.clone())
        entry = one["moves"][s.position()]
        assert entry == {"action": s.action_to_string(r["action"]), "value": round(r["value"], 3)}
        if arrangement == arrangement[::-1]:
            continue
        # its mirror image is not searched again: the mirrored reply, the same value
        assert one["moves"][_after(arrangement[::-1]).position()] == {"action": entry["action"][::-1],
                                                                      "value": entry["value"]}
    assert "setup book: search:depth=2" in B.describe(one)


def test_agents_play_the_book_where_it_has_the_position(shipped):
    s = _start()
    south = shipped["moves"][s.position()]
    for spec in ("search:depth=2,book=1", "alphabeta:depth=1,book=1"):
        r = make_agent(spec).analyse(s.clone())
        assert s.action_to_string(r["action"]) == south["action"] and r["book"] is True
        assert r["value"] == south["value"] and r["depth"] == 6 and r["nodes"] == 0
    for arrangement in ("321123", "231132", "112233"):
        t = _after(arrangement)
        assert t.action_to_string(make_agent("search:depth=1,book=1").choose(t)) == \
            shipped["moves"][t.position()]["action"]
    # Without book=1, or with the book's action excluded, the agent searches.
    assert "book" not in make_agent("search:depth=1").analyse(s.clone())
    r = make_agent("search:depth=1,book=1").analyse(s.clone(), exclude=[s.string_to_action(south["action"])])
    assert "book" not in r and s.action_to_string(r["action"]) != south["action"]
    # Past the setup, in the beginner variant and in the other games there is no book.
    t = _after("321123")
    t.apply_action(t.string_to_action(shipped["moves"][t.position()]["action"]))
    assert "book" not in make_agent("search:depth=1,book=1").analyse(t.clone())
    assert "book" not in make_agent("search:depth=1,book=1").analyse(load_game("gyges", "beginner").new_initial_state())
    assert "book" not in make_agent("search:depth=1,book=1").analyse(load_game("yinsh").new_initial_state())
    with pytest.raises(ValueError, match="book must be 0 or 1"):
        make_agent("search:depth=1,book=2")


def test_level_5_plays_the_book(shipped):
    s = _start()
    level = make_agent("level:5")
    assert s.action_to_string(level.choose(s)) == shipped["moves"][s.position()]["action"]
    assert level.agent_for("gyges").last["book"] is True
    for spec in ("level:5,book=0,scale=0.01", "level:4,scale=0.01", "baseline:5,scale=0.01"):
        level = make_agent(spec)
        level.choose(s)
        assert "book" not in level.agent_for("gyges").last, spec
    level = make_agent("level:4,book=1")
    assert s.action_to_string(level.choose(s)) == shipped["moves"][s.position()]["action"]
    # levels played by greedy or MCTS ignore it, as games without a book do
    assert make_agent("level:2,book=1").choose(s) in s.legal_actions()
    rings = load_game("rings", None, 4).new_initial_state()
    assert make_agent("level:5,book=0,scale=0.01").choose(rings) in rings.legal_actions()
    for bad in ("level:5,book=yes", "level:5,book=1.0", "search:depth=1,book=1.0", "search:depth=1,book=-1"):
        with pytest.raises(ValueError, match="book must be 0 or 1"):
            make_agent(bad)


def test_a_bad_book_file_is_refused(tmp_path, shipped):
    def refused(content, match):
        p = tmp_path / "book.json"
        p.write_text(content if isinstance(content, str) else json.dumps(content))
        B.load_book.cache_clear()
        with pytest.raises(ValueError, match=match) as e:
            B.load_book("gyges", str(p))
        assert str(p) in str(e.value) and len(str(e.value)) < 600

    refused("{not json", "cannot read the book")
    refused([1, 2], "not a book")
    refused({**shipped, "game": "yinsh"}, "a book of 'yinsh'")
    start = _start().position()
    refused({**shipped, "moves": {start: {"action": "999999", "value": 0}}}, "action '999999'")
    refused({**shipped, "moves": {start: {"action": "321123"}}}, "needs an 'action'")
    refused({**shipped, "moves": {"x" * 500: {"action": "321123", "value": 0}}}, "not the start or one setup")
    after = _after("321123").position()
    refused({**shipped, "moves": {after: {"action": "a1-a2", "value": 0}}}, "a1-a2")
    refused({**shipped, "depth": "six"}, "whole number")
    refused({k: v for k, v in shipped.items() if k != "variant"}, "'variant' must name")
    refused({**shipped, "variant": "chess960"}, "chess960")
    for bad in ("NaN", "Infinity", "1e999", "1e308", "1" + "0" * 400, "-200000"):
        refused(json.dumps({**shipped, "moves": {start: {"action": "321123", "value": 0}}}).replace('"value": 0',
                                                                                             f'"value": {bad}'),
                "a 'value' \\(a number from -100000 to 100000\\)")
    refused(json.dumps({**shipped, "moves": {start: {"action": "321123", "value": 0}}}).replace('"value": 0',
                                                                                         '"value": ' + "1" * 5000),
            "cannot read the book")
    refused("[" * 100_000 + "]" * 100_000, "cannot read the book")
    big = tmp_path / "big.json"
    big.write_text(" " * (B.MAX_BYTES + 1))
    with pytest.raises(ValueError, match="larger than"):
        B.load_book("gyges", str(big))
    # a good file with a changed move is read as written
    p = tmp_path / "good.json"
    p.write_text(json.dumps({**shipped, "moves": {start: {"action": "123321", "value": 1.5}}}))
    assert B.book_move(_start(), str(p))[:2] == (_start().string_to_action("123321"), 1.5)


def test_a_broken_book_is_warned_about_once_and_the_agent_searches(tmp_path, monkeypatch, caplog):
    bad = tmp_path / "gyges_setup.json"
    bad.write_text('{"game": "gyges", "moves": ')
    monkeypatch.setitem(B.BOOK_FILES, "gyges", bad)
    B.load_book.cache_clear()
    monkeypatch.setattr(B, "_BROKEN", set())
    s = _start()
    agent = make_agent("search:depth=1,book=1")
    with caplog.at_level("WARNING", logger="ringgames.ai.book"):
        for _ in range(3):
            r = agent.analyse(s.clone())
            assert "book" not in r and r["action"] in s.legal_actions()
    warnings = [rec for rec in caplog.records if "opening book not used" in rec.getMessage()]
    assert len(warnings) == 1 and str(bad) in warnings[0].getMessage()
    B.load_book.cache_clear()


def test_cli_builds_a_book(tmp_path):
    out = tmp_path / "b.json"
    r = CliRunner().invoke(main, ["book", "gyges", "--depth", "1", "--out", str(out)])
    assert r.exit_code == 0, r.output
    assert "setup book: search:depth=1,min=1" in r.output and "91 positions" in r.output
    book = B.load_book("gyges", str(out))
    assert len(book["moves"]) == 91 and book["depth"] == 1
    r = CliRunner().invoke(main, ["book", "gyges", "--depth", "1", "--out", str(tmp_path / "no" / "such" / "dir" / "b.json")])
    assert r.exit_code != 0 and "Traceback" not in r.output
    r = CliRunner().invoke(main, ["book", "yinsh"])
    assert r.exit_code == 2
    if Path("/dev/full").exists():  # the disk fills after the build: an error, no traceback
        r = CliRunner().invoke(main, ["book", "gyges", "--depth", "1", "--out", "/dev/full"])
        assert r.exit_code == 1 and "cannot write the book to '/dev/full'" in r.output, r.output
        assert isinstance(r.exception, SystemExit)  # a clean exit, not an OSError's traceback
