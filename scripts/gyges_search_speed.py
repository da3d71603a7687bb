"""Gygès alpha-beta speed on six fixed middle-game positions (docs/performance.md).

Positions: seeded random setups, then alternately random and greedy moves for 8 plies,
keeping those where the side to move has no win in one. Usage, from the repository root:

    PYTHONPATH=src python scripts/gyges_search_speed.py depth2   # complete depth 2, safe=0
    PYTHONPATH=src python scripts/gyges_search_speed.py level3   # depth=2,time=1 with the safety filter
    PYTHONPATH=src python scripts/gyges_search_speed.py 2.5      # a time budget in seconds, safe=0
"""

from __future__ import annotations

import random
import sys
import time

from ringgames import load_game
from ringgames.ai.alphabeta import AlphaBetaAgent
from ringgames.ai.greedy import GreedyAgent
from ringgames.ai.tactics import winning_action


def positions(n: int = 6, plies: int = 8) -> list[str]:
    game = load_game("gyges")
    out: list[str] = []
    seed = 0
    while len(out) < n:
        rng = random.Random(seed)
        seed += 1
        greedy = GreedyAgent(seed=seed)
        s = game.new_initial_state()
        for i in range(2 + plies):
            if s.is_terminal():
                break
            s.apply_action(rng.choice(s.legal_actions()) if i < 2 or i % 3 == 0 else greedy.choose(s))
        if not s.is_terminal() and winning_action(s) is None:
            out.append(s.position())
    return out


def main(mode: str) -> None:
    game = load_game("gyges")
    total_nodes = total_s = 0.0
    for pos in positions():
        st = game.state_from_position(pos)
        if mode == "depth2":
            agent = AlphaBetaAgent(depth=2, seed=1, safe=0)
        elif mode == "level3":
            agent = AlphaBetaAgent(depth=2, time=1, seed=1)
        else:
            agent = AlphaBetaAgent(time=float(mode), seed=1, safe=0)
        t0 = time.perf_counter()
        r = agent.analyse(st.clone())
        dt = time.perf_counter() - t0
        total_nodes += r["nodes"]
        total_s += dt
        print(f"{pos}  legal={len(st.legal_actions()):4d} depth={r['depth']} nodes={r['nodes']:7d} "
              f"s={dt:5.2f} nodes/s={r['nodes'] / dt:8.0f} {st.action_to_string(r['action'])} {r['value']:.0f}")
    print(f"total: {total_nodes:.0f} nodes in {total_s:.2f} s, {total_nodes / total_s:.0f} nodes/s")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "depth2")
