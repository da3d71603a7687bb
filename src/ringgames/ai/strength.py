"""The strength report behind ``ringgames strength`` (``docs/ai.md``).

For each game and level L: L against ``random`` and L against level L−1
(``games`` games each, colours alternated, seeds fixed), with the score of L,
its Elo difference and 95% interval, and whether it meets the targets
(≥ 90% against random for L ≥ 2; ≥ 60% against the level below).
"""

from __future__ import annotations

import platform
import time

from .. import load_game
from .levels import spec_for
from .match import run_match

__all__ = ["run_report"]


def _available(name: str) -> bool:
    try:
        load_game(name)
        return True
    except (ModuleNotFoundError, ImportError):
        return False


def run_report(games_list: list[str], games: int = 100, scale: float = 1.0, levels=(1, 2, 3, 4, 5), jobs: int = 2,
               seed: int = 0, echo=print) -> str:
    from tqdm import tqdm

    lines = ["# Strength of the computer players", ""]
    lines.append("Produced by `ringgames strength "
                 f"--games {games} --scale {scale:g} --levels {min(levels)}-{max(levels)} --jobs {jobs} --seed {seed}` "
                 f"on {platform.python_implementation()} {platform.python_version()} ({platform.machine()}), "
                 f"{time.strftime('%Y-%m-%d')}.")
    if scale != 1.0:
        lines.append("")
        lines.append(f"**Time budgets were multiplied by {scale:g}**: these are *not* the real levels 3–5, "
                     "only the same agents with shorter budgets.")
    lines.append("")
    lines.append("Score = (wins + draws/2) / games for the row's level; Elo is the difference to the opponent "
                 "with a 95% confidence interval (normal approximation on the score). Targets: ≥ 0.90 against "
                 "`random` for levels ≥ 2, ≥ 0.60 against the level below.")
    for name in games_list:
        if not _available(name):
            lines += ["", f"## {name}", "", "Not measured: the engine is not available on this branch."]
            continue
        title = load_game(name).title
        lines += ["", f"## {title}", "", "| level | agent | opponent | games | W-D-L | score | Elo (95% CI) | target |",
                  "|---|---|---|---|---|---|---|---|"]
        for lv in levels:
            me = spec_for(name, lv, scale)
            pairs = [("random", "random", 0.9 if lv >= 2 else None)]
            if lv > 1:
                pairs.append((f"level {lv - 1}", spec_for(name, lv - 1, scale), 0.6))
            for label, opp, target in pairs:
                if opp == me:
                    opp_spec = opp + ("," if ":" in opp else ":") + "seed=999"  # distinct spec string
                else:
                    opp_spec = opp
                bar = tqdm(total=games, unit="game", desc=f"{name} L{lv} vs {label}", leave=False)
                t0 = time.perf_counter()
                r = run_match(name, [me, opp_spec], games=games, seed=seed, jobs=jobs, progress=bar)
                bar.close()
                ok = "" if target is None else ("met" if r["score"] >= target else f"**missed** (< {target:.2f})")
                elo = f"{r['elo']:+.0f} ({r['elo_low']:+.0f} … {r['elo_high']:+.0f})" + (" clipped" if r["elo_clipped"] else "")
                row = (f"| {lv} | `{me}` | {label} (`{opp}`) | {r['games']} | {r['wins']}-{r['draws']}-{r['losses']} | "
                       f"{r['score']:.3f} | {elo} | {ok} |")
                lines.append(row)
                echo(row + f"  [{time.perf_counter() - t0:.0f} s]")
    return "\n".join(lines) + "\n"
