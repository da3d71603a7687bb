"""Observation tensors and legal-action masks: shapes, perspective, and plane values
checked against the rules' own views of the position."""

from __future__ import annotations

import random

import numpy as np
import pytest

from ringgames import load_game


def plane(game, obs, name):
    names = [n for n, _ in game.observation_planes()]
    return obs[names.index(name)]


# ---------------------------------------------------------------- YINSH
def test_yinsh_initial_observation():
    game = load_game("yinsh")
    s = game.new_initial_state()
    obs = s.observation_tensor()
    assert obs.shape == (19, 11, 11) == game.observation_shape() and obs.dtype == np.float32
    assert plane(game, obs, "on_board").sum() == 85
    assert plane(game, obs, "on_board")[0, 0] == 0  # a1 is not a point
    assert plane(game, obs, "on_board")[1, 0] == 1  # a2 is
    assert (plane(game, obs, "phase_place") == 1).all() and (plane(game, obs, "phase_move") == 0).all()
    assert (plane(game, obs, "pool") == 1).all() and (plane(game, obs, "to_move") == 1).all()
    assert (plane(game, obs, "is_white") == 1).all() and (plane(game, obs, "blitz") == 0).all()
    assert (plane(game, s.observation_tensor(1), "to_move") == 0).all()
    assert (plane(load_game("yinsh", "blitz"), load_game("yinsh", "blitz").new_initial_state().observation_tensor(), "blitz") == 1).all()


def test_yinsh_perspective_swaps_colours():
    game = load_game("yinsh")
    s = game.new_initial_state()
    for a in "e3 a5 b5 c6 d6 e4 h7 g2 g3 g8 h7-g7".split():
        s.play(a)
    w, b = s.observation_tensor(0), s.observation_tensor(1)
    assert plane(game, w, "own_rings")[2, 4] == 1  # e3: row 3, column e (White's ring)
    assert plane(game, b, "opp_rings")[2, 4] == 1
    assert plane(game, w, "own_markers")[6, 7] == 1  # h7: White's first marker
    assert plane(game, b, "opp_markers")[6, 7] == 1
    assert plane(game, w, "own_rings").sum() == 5 and plane(game, w, "own_markers").sum() == 1
    for x, y in (("own_rings", "opp_rings"), ("own_markers", "opp_markers"), ("own_rows", "opp_rows")):
        assert np.array_equal(plane(game, w, x), plane(game, b, y))
    assert plane(game, w, "pool")[0, 0] == pytest.approx(50 / 51)
    assert plane(game, b, "to_move")[0, 0] == 1 and plane(game, w, "to_move")[0, 0] == 0


def test_yinsh_rows_planes_hold_the_legal_rows():
    """In random games, the observer's row plane marks exactly the points of its legal row removals."""
    from ringgames.games.yinsh.board import POINTS, WINDOWS
    from ringgames.games.yinsh.kernel import RING, ROW

    game = load_game("yinsh")
    rng = random.Random(3)
    seen = 0
    for _ in range(40):
        s = game.new_initial_state()
        while not s.is_terminal():
            legal = s.legal_actions()
            if s.phase == "row":
                me = s.current_player()
                pts = {p for a in legal for p in WINDOWS[a - ROW]}
                got = plane(game, s.observation_tensor(me), "own_rows")
                want = np.zeros((11, 11))
                for p in pts:
                    c, r = POINTS[p]
                    want[r - 1, c] = 1
                assert np.array_equal(got, want)
                assert plane(game, s.observation_tensor(me), "phase_row").all()
                assert np.array_equal(plane(game, s.observation_tensor(1 - me), "opp_rows"), want)
                seen += 1
            if s.phase == "ring":
                assert all(RING <= a < RING + 85 for a in legal)
                assert plane(game, s.observation_tensor(), "phase_ring").all()
            s.apply_action(rng.choice(legal))
        if seen >= 5:
            break
    assert seen >= 5


# ---------------------------------------------------------------- Gygès
def test_gyges_observation_is_seen_from_the_home_row():
    game = load_game("gyges")
    s = game.state_from_position("321123/000000/000000/000000/000000/123321 S")
    south, north = s.observation_tensor(0), s.observation_tensor(1)
    assert south.shape == (8, 6, 6) == game.observation_shape()
    assert plane(game, south, "height3")[0].tolist() == [1, 0, 0, 0, 0, 1]  # row 1: 321123
    assert plane(game, south, "height1")[5].tolist() == [1, 0, 0, 0, 0, 1]  # row 6: 123321
    assert plane(game, north, "height1")[0].tolist() == [1, 0, 0, 0, 0, 1]  # North's home row first
    assert plane(game, north, "height3")[5].tolist() == [1, 0, 0, 0, 0, 1]
    assert plane(game, south, "to_move").all() and not plane(game, north, "to_move").any()
    assert plane(game, north, "is_north").all() and not plane(game, south, "is_north").any()
    assert plane(game, south, "replace").all() and not plane(game, south, "setup").any()
    beginner = load_game("gyges", "beginner").new_initial_state()
    b = beginner.observation_tensor()
    assert plane(load_game("gyges", "beginner"), b, "setup").all() and not b[:3].any() and not b[7].any()


def test_gyges_repetition_plane():
    game = load_game("gyges")
    s = game.state_from_position("100000/220000/330000/000331/000022/000011 S")
    assert not plane(game, s.observation_tensor(), "repeated").any()
    for m in ("a1-b1", "e6-d6", "b1-a1", "d6-e6"):
        s.play(m)
    assert s.repetition_count() == 2
    assert plane(game, s.observation_tensor(), "repeated").all()


# ---------------------------------------------------------------- RINGS
def test_rings_seats_are_rotated_to_the_observer():
    from ringgames.games.rings.board import point_index
    from ringgames.games.rings.observation import POINT_CELL

    game = load_game("rings", players=3)
    s = game.new_initial_state()
    for tok in ("K12", "pass", "L1", "pass", "M1"):  # red K12, blue pass, green L1, red pass, blue M1
        s.play(tok)
    names = [n for n, _ in game.observation_planes()]
    flat = {p: s.observation_tensor(p).reshape(len(names), -1) for p in range(3)}

    def stone(obs, slot, pt):
        return obs[names.index(f"stones{slot}"), POINT_CELL[point_index(pt)]]

    assert stone(flat[0], 0, "K12") == 1 and stone(flat[0], 2, "L1") == 1 and stone(flat[0], 1, "M1") == 1
    assert stone(flat[1], 0, "M1") == 1 and stone(flat[1], 2, "K12") == 1 and stone(flat[1], 1, "L1") == 1
    assert stone(flat[2], 0, "L1") == 1 and stone(flat[2], 1, "K12") == 1
    assert not flat[0][names.index("stones3")].any()  # no fourth seat
    assert flat[0][names.index("active2")].all() and not flat[0][names.index("active3")].any()
    # green (seat 2) is to move: slot 2 for red, slot 1 for blue, slot 0 for green
    assert flat[0][names.index("to_move2")].all() and flat[1][names.index("to_move1")].all()
    assert flat[2][names.index("to_move0")].all()
    assert flat[0][names.index("empty")].sum() == 216 - 3


def test_rings_control_planes_match_the_state():
    from ringgames.games.rings.observation import CIRCLE_CELLS

    game = load_game("rings", players=2)
    rng = random.Random(5)
    s = game.new_initial_state()
    names = [n for n, _ in game.observation_planes()]
    for _ in range(300):
        if s.is_terminal():
            break
        s.apply_action(rng.choice(s.legal_actions()))
    for p in range(2):
        obs = s.observation_tensor(p).reshape(len(names), -1)
        for c in range(91):
            m, r = s.majority(c), s.ring_owner(c)
            for k in range(2):
                seat = (p + k) % 2
                assert obs[names.index(f"control{k}"), CIRCLE_CELLS[c, 0]] == (m == seat)
                assert obs[names.index(f"ring{k}"), CIRCLE_CELLS[c, 1]] == (r == seat)
        # the score is the number of circles with majority
        assert obs[names.index("control0"), CIRCLE_CELLS[:, 0]].sum() == s.scores()[p]


# ---------------------------------------------------------------- all games
@pytest.mark.parametrize("name,variant,players", [("yinsh", None, None), ("gyges", None, None), ("rings", None, 4)])
def test_masks_and_bad_players(name, variant, players):
    game = load_game(name, variant, players)
    s = game.new_initial_state()
    mask = s.legal_action_mask()
    assert mask.dtype == bool and mask.shape == (game.num_distinct_actions,)
    assert np.flatnonzero(mask).tolist() == s.legal_actions()
    with pytest.raises(ValueError, match="not a seat"):
        s.observation_tensor(game.num_players)
    with pytest.raises(ValueError, match="not a seat"):
        s.observation_tensor(-1)
    s.resign(0) if game.num_players == 2 else s.agree_draw()
    assert not s.legal_action_mask().any()
    with pytest.raises(ValueError, match="game is over"):
        s.observation_tensor()
    assert s.observation_tensor(1).shape == game.observation_shape()


def test_gyges_north_sees_its_moves_as_south_would():
    """North's observation and its actions in its own frame are those of South in the position
    with the rows reversed (the rules are the same for both sides)."""
    from ringgames.games.gyges.board import NSQ, SIZE
    from ringgames.games.gyges.notation import format_position

    game = load_game("gyges")
    assert (game.observer_actions(0) == np.arange(game.num_distinct_actions)).all()
    perm = game.observer_actions(1)
    assert (perm[perm] == np.arange(game.num_distinct_actions)).all()  # its own inverse
    rng = random.Random(4)
    checked = 0
    s = game.state_from_position("321123/000000/000000/000000/000000/123321 S")
    while not s.is_terminal() and checked < 25:
        if s.current_player() == 1:
            board = s.board
            flipped = [board[(SIZE - 1 - sq // SIZE) * SIZE + sq % SIZE] for sq in range(NSQ)]
            t = game.state_from_position(format_position(flipped, 0))
            mask = np.zeros(game.num_distinct_actions, dtype=bool)
            mask[perm[s.legal_actions()]] = True
            assert (mask == t.legal_action_mask()).all()
            a, b = s.observation_tensor(1), t.observation_tensor(0)
            names = [n for n, _ in game.observation_planes()]
            keep = [i for i, n in enumerate(names) if n not in ("is_north", "repeated")]
            assert np.array_equal(a[keep], b[keep])
            checked += 1
        s.apply_action(rng.choice(s.legal_actions()))
    assert checked >= 10


@pytest.mark.parametrize("name", ["yinsh", "gyges", "rings"])
def test_docs_list_every_plane(name):
    """docs/research.md documents each plane under its name and index."""
    import re
    from pathlib import Path

    text = (Path(__file__).resolve().parent.parent / "docs" / "research.md").read_text()
    game = load_game(name)
    section = text.split(f"### {game.title}: {game.observation_shape()}")[1].split("###")[0]
    for i, (plane_name, _) in enumerate(game.observation_planes()):
        base = re.sub(r"\d$", "", plane_name)
        if name == "rings" and base != plane_name:  # a per-seat-slot plane: one row for slots 0..5
            k = int(plane_name[-1])
            assert f"| {i - k}–{i - k + 5} | `{base}0`…`{base}5` |" in section, plane_name
        else:
            assert f"| {i} | `{plane_name}` |" in section, plane_name


def test_rings_convertible_plane_is_the_legal_conversions():
    from ringgames.games.rings.kernel import CONVERT0
    from ringgames.games.rings.observation import CIRCLE_CELLS

    game = load_game("rings", players=3)
    names = [n for n, _ in game.observation_planes()]
    rng = random.Random(8)
    seen = 0
    for _ in range(6):
        s = game.new_initial_state()
        while not s.is_terminal():
            if s.phase() != "place":
                p = s.current_player()
                obs = s.observation_tensor(p).reshape(len(names), -1)
                got = np.flatnonzero(obs[names.index("convertible"), CIRCLE_CELLS[:, 0]]).tolist()
                assert got == [a - CONVERT0 for a in s.legal_actions() if CONVERT0 <= a < CONVERT0 + 91]
                assert obs[names.index("phase_convert") + (s.phase() == "pass-convert")].all()
                seen += 1
            s.apply_action(rng.choice(s.legal_actions()))
    assert seen >= 20


def test_docs_example_runs():
    """The first code block of docs/research.md runs and shows true values."""
    from pathlib import Path

    text = (Path(__file__).resolve().parent.parent / "docs" / "research.md").read_text()
    code = text.split("```python\n", 1)[1].split("```", 1)[0]
    env: dict = {}
    exec(compile(code, "docs/research.md", "exec"), env)  # noqa: S102 - our own documentation
    assert env["obs"].shape == (40, 23, 24) and env["mask"].sum() == 217
    assert (env["game"].max_game_length(), env["game"].game_type()) == (167089, "zero_sum")
    assert "# (167089, \"zero_sum\")" in code
    assert env["sample"][1].sum() == 1.0 and (env["perm"][env["perm"]] == range(49_375)).all()
