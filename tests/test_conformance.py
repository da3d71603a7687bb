"""Every game goes through the same protocol checks (as pgx and OpenSpiel do).

Random games to the end, apply/undo, clone independence, serialise round trip,
action strings round trip, returns as the game type promises.
"""

import random

import pytest

from ringgames import TERMINAL, deserialize_state, load_game

CONFIGS = [
    ("yinsh", None, None),
    ("yinsh", "blitz", None),
    ("gyges", None, None),
    ("gyges", "beginner", None),
    ("rings", None, 2),
    ("rings", None, 3),
    ("rings", None, 6),
]


@pytest.mark.parametrize("name,variant,players", CONFIGS)
def test_random_games_through_the_protocol(name, variant, players):
    game = load_game(name, variant, players)
    rng = random.Random(12345)
    for _ in range(3):
        s = game.new_initial_state()
        steps = 0
        while not s.is_terminal():
            legal = s.legal_actions()
            assert legal == sorted(set(legal)) and legal, "legal actions must be sorted, distinct, non-empty"
            assert all(0 <= a < game.num_distinct_actions for a in legal)
            p = s.current_player()
            assert 0 <= p < game.num_players
            if steps % 7 == 0:
                for a in legal[:20]:
                    text = s.action_to_string(a)
                    assert s.string_to_action(text) == a
                    assert s.string_to_action(text.upper()) == a  # readers ignore case
                c = s.clone()
                a = rng.choice(legal)
                c.apply_action(a)
                assert s.legal_actions() == legal  # the clone is independent
                pos = s.position()
                s.apply_action(a)
                s.undo_action()
                assert s.position() == pos
            s.apply_action(rng.choice(legal))
            steps += 1
            assert steps < 100_000
        assert s.current_player() == TERMINAL and s.legal_actions() == []
        ret = s.returns()
        assert len(ret) == game.num_players
        if game.zero_sum:
            assert abs(sum(ret)) < 1e-9
        t = deserialize_state(s.serialize())
        assert t.position() == s.position() and t.returns() == ret and t.history == s.history


@pytest.mark.parametrize("name,variant,players", CONFIGS)
def test_research_protocol(name, variant, players):
    """Masks, observations, utilities, game length and history entries, for every game."""
    import numpy as np

    from ringgames.protocol import GAME_TYPES

    game = load_game(name, variant, players)
    assert game.game_type() in GAME_TYPES
    assert game.min_utility() < game.max_utility()
    assert game.truncation_length() <= game.max_game_length()
    shape = game.observation_shape()
    assert len(game.observation_planes()) == shape[0]
    for p in range(game.num_players):
        assert np.array_equal(np.sort(game.observer_actions(p)), np.arange(game.num_distinct_actions))
    rng = random.Random(99)
    for _ in range(2):
        s = game.new_initial_state()
        seats, texts = [], []
        while not s.is_terminal():
            legal = s.legal_actions()
            mask = s.legal_action_mask()
            assert mask.dtype == bool and mask.shape == (game.num_distinct_actions,)
            assert np.flatnonzero(mask).tolist() == legal
            if len(seats) % 5 == 0:
                for p in range(game.num_players):
                    obs = s.observation_tensor(p)
                    assert obs.dtype == np.float32 and obs.shape == shape
                    assert obs.min() >= 0.0 and obs.max() <= 1.0
                assert np.array_equal(s.observation_tensor(), s.observation_tensor(s.current_player()))
            a = rng.choice(legal)
            seats.append(s.current_player())
            texts.append(s.action_to_string(a))
            s.apply_action(a)
        assert len(s.history) <= game.max_game_length()
        ret = s.returns()
        assert all(game.min_utility() <= r <= game.max_utility() for r in ret)
        if game.utility_sum() is not None:
            assert abs(sum(ret) - game.utility_sum()) < 1e-9
        entries = list(s.history_entries())
        assert [e.seat for e in entries] == seats == [e.to_move for e in entries]
        assert [e.text for e in entries] == texts == s.action_strings()
        assert [e.action for e in entries] == s.history


@pytest.mark.parametrize("name,players", [("yinsh", None), ("gyges", None), ("rings", 3)])
def test_history_entries_with_resignations_and_draws(name, players):
    from ringgames import AGREED_DRAW, RESIGN, Reason

    game = load_game(name, None, players)
    s = game.new_initial_state()
    first = s.legal_actions()[0]
    s.apply_action(first)
    if game.num_players == 3:
        s.resign(2)  # not the player to move (seat 1)
        s.apply_action(s.legal_actions()[-1])  # seat 1 passes
        s.agree_draw()
        entries = list(s.history_entries())
        assert [(e.seat, e.action, e.text, e.to_move) for e in entries[1:]] == [
            (2, RESIGN, "resign", 1), (1, s.history[2], "pass", 1), (0, AGREED_DRAW, "draw", 0)]
        assert s.outcome().reason == Reason.AGREEMENT == "agreement"
    else:
        s.resign(0)  # not the player to move (seat 1)
        entries = list(s.history_entries())
        assert [(e.seat, e.action, e.text, e.to_move) for e in entries[1:]] == [(0, RESIGN, "resign", 1)]
        assert s.outcome().reason == Reason.RESIGN == "resign"
    assert entries[0].seat == 0 and entries[0].action == first
    t = deserialize_state(s.serialize())
    assert list(t.history_entries()) == entries


def test_outcome_reasons_are_documented_values():
    import json

    from ringgames import Outcome, Reason

    out = Outcome((0,), "rings")
    assert out.reason is Reason.RINGS and out.reason == "rings" and json.dumps(out.reason) == '"rings"'
    assert f"{out.reason}" == "rings"
    with pytest.raises(ValueError):
        Outcome((), "checkmate")
    assert {r.value for r in Reason} == {"rings", "markers", "blocked", "goal", "repetition", "passes", "resign", "agreement"}


def test_deserialize_reads_the_former_resign_format():
    game = load_game("rings", players=3)
    s = game.new_initial_state()
    s.play("K12")
    s.resign(2)
    old = ('{"game":"rings","params":{"variant":"standard","players":"3"},"start":null,"history":[' + str(s.history[0])
           + ',"resign"],"resigned":[2]}')
    t = deserialize_state(old)
    assert t.position() == s.position() and t.active_players() == [0, 1]
    assert '"resign:2"' in s.serialize()
