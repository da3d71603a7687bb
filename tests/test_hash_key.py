"""``State.hash_key()`` is a stable 64-bit position key: the same in every process, whatever PYTHONHASHSEED."""

import json
import os
import random
import subprocess
import sys

import pytest

from ringgames import State, load_game

GAMES = ["yinsh", "gyges", "rings"]

# keys of positions reached by seeded random play, printed as JSON by a fresh interpreter
SCRIPT = r"""
import json, random, sys
from ringgames import State, load_game
out = {}
for name in sys.argv[1:]:
    s = load_game(name).new_initial_state()
    rng = random.Random(7)
    keys = []
    for _ in range(12):
        keys.append([s.position(), s.hash_key(), State.hash_key(s)])
        if s.is_terminal():
            break
        s.apply_action(rng.choice(s.legal_actions()))
    out[name] = keys
print(json.dumps(out))
"""


def keys_in_subprocess(hashseed: str) -> dict:
    env = dict(os.environ, PYTHONHASHSEED=hashseed)
    r = subprocess.run([sys.executable, "-c", SCRIPT, *GAMES], env=env, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-2000:]
    return json.loads(r.stdout.strip().splitlines()[-1])


def test_hash_keys_are_the_same_in_processes_with_other_hash_seeds():
    a = keys_in_subprocess("1")
    b = keys_in_subprocess("2")
    assert a == b  # Python's hash() of the same str or bytes differs between these two processes
    here = json.loads(json.dumps({name: [[p, k, d] for p, k, d in rows] for name, rows in a.items()}))
    for name in GAMES:
        rows = here[name]
        assert len(rows) == 12
        for pos, key, default_key in rows:
            s = load_game(name).state_from_position(pos)
            assert s.hash_key() == key and State.hash_key(s) == default_key
            assert 0 <= key < 2**64 and 0 <= default_key < 2**64
        # different positions, different keys
        assert len({p for p, _, _ in rows}) == len({k for _, k, _ in rows}) == len({d for _, _, d in rows})


@pytest.mark.parametrize("name", GAMES)
def test_equal_positions_reached_by_other_paths_have_equal_keys(name):
    game = load_game(name)
    s = game.new_initial_state()
    rng = random.Random(3)
    for _ in range(8):
        s.apply_action(rng.choice(s.legal_actions()))
    t = game.state_from_position(s.position())  # no history
    assert t.hash_key() == s.hash_key() and State.hash_key(t) == State.hash_key(s)
