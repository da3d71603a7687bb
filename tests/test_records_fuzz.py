"""Fuzz tests of the record readers: mutated real boardspace files and mutated .rgn records.

Any input gives records that replay, or a RecordError that names the file (and the
node or line where there is one), bounded in size; never another exception.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import given

from ringgames import load_game
from ringgames.records import Record, RecordError, load_file, loads
from tests.conftest import SHARED
from tests.fuzz_helpers import FUZZ, arbitrary_text, bounded, mutated, mutated_bytes, random_states

FOLDER = SHARED / "data" / "yinsh" / "boardspace-2005"
FILES = sorted(FOLDER.glob("*.sgf"))[::180] if FOLDER.is_dir() else []  # 5 real files spread over the set
SEEDS = [p.read_bytes() for p in FILES]
#: errors about the whole file (no node to name)
WHOLE_FILE = ("not an SGF file", "no SGF game tree", "no YINSH game found", "unknown record format")


def check_error(exc: RecordError, source: str) -> None:
    msg = str(exc)
    assert msg.startswith(source + ":"), msg[:200]
    assert len(msg) < 600, f"{len(msg)} characters"
    assert re.search(r"\b(node|line|turn|move) [0-9]+", msg) or any(w in msg for w in WHOLE_FILE), msg


def read_and_replay(path: Path) -> int:
    """Replays every record of the file; the number of actions replayed."""
    try:
        records = load_file(path)
    except RecordError as exc:
        check_error(exc, str(path))
        return -1
    n = 0
    for rec in records:
        try:
            n += len(rec.replay().history)
        except RecordError as exc:
            check_error(exc, str(path))
    return n


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if not SEEDS:
        pytest.fail(f"no boardspace files in {FOLDER}")
    return tmp_path_factory.mktemp("fuzz")


@FUZZ
@given(data=mutated_bytes(SEEDS or [b""]))
def test_mutated_boardspace_files_replay_or_fail_with_a_record_error(folder, data):
    path = folder / "mutated.sgf"
    path.write_bytes(data)
    bounded(lambda: read_and_replay(path))


def test_every_truncation_of_a_boardspace_file_is_an_error_or_the_whole_game(folder):
    """Cut anywhere: a RecordError naming the file, except at the very end (the whole game)."""
    data = SEEDS[0]
    whole = len(load_file(FILES[0])[0].replay().history)
    path = folder / "cut.sgf"
    complete = 0
    for cut in range(0, len(data), 7):
        path.write_bytes(data[:cut])
        n = read_and_replay(path)
        assert n in (-1, 0) or n == whole, cut  # never a silently shorter game
        complete += n == whole
    path.write_bytes(data)
    assert read_and_replay(path) == whole
    assert complete <= 1


def _rgn_seeds() -> list[str]:
    out = []
    for game, params in (("yinsh", {}), ("gyges", {}), ("rings", {"players": 3})):
        states = random_states(game, 60, seed=7, **params)
        out.append(Record.from_state(states[-1], {"White": 'a;b"c', "Event": "x]y"}).dumps())
    return out


RGN = _rgn_seeds()


@FUZZ
@given(text=mutated(RGN) | arbitrary_text(200))
def test_mutated_rgn_records_replay_or_fail_with_a_record_error(text):
    def run() -> None:
        try:
            for rec in loads(text, "fuzz.rgn"):
                rec.replay()
        except RecordError as exc:
            msg = str(exc)
            assert msg.startswith("fuzz.rgn:") and len(msg) < 600, msg[:200]

    bounded(run)


def test_rgn_seeds_round_trip():
    for text in RGN:
        rec = loads(text)[0]
        assert rec.tags["White"] == 'a;b"c'
        assert Record.from_state(rec.replay(), dict(rec.tags)).dumps() == text
    assert load_game("rings", players=3)  # the seeds cover the three games
