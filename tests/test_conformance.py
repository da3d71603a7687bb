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
