"""The sequential probability ratio test of a match (``ringgames match A B --sprt ELO0,ELO1``).

H0: A is ``elo0`` Elo stronger than B; H1: ``elo1`` (logistic Elo: expected score ``1 / (1 + 10^(−elo/400))``).
After each game the log-likelihood ratio (LLR) of H1 against H0 is compared with Wald's bounds
``log(β / (1 − α))`` (accept H0) and ``log((1 − β) / α)`` (accept H1); α is the chance of accepting H1
when H0 holds, β that of accepting H0 when H1 holds.

The LLR is the generalised SPRT's (GSPRT, as in Fishtest): the results are counts ``n_i`` of values
``v_i`` in [0, 1] — trinomial (wins, draws, losses: 1, ½, 0) for single games, or pentanomial (pairs
of games with colours swapped: 0, ¼, ½, ¾, 1 per pair). Under each hypothesis the distribution of the
values is the most likely one whose mean is that hypothesis's expected score ``s``
(``p_i = n_i / (N (1 + λ (v_i − s)))``, λ found by bisection), and
``LLR = Σ n_i log(p1_i / p0_i)``. A value not seen yet counts 0.001 times (Fishtest's regularisation),
so that the distributions exist after a few one-sided results (a first win gives an LLR of about
``log(s1 / s0)``, not a decision).

>>> [round(b, 3) for b in bounds(0.05, 0.05)]
[-2.944, 2.944]
>>> round(llr_trinomial(60, 0, 40, 0, 50), 4)
1.8463
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field

__all__ = ["EPSILON", "MAX_ELO", "expected_score", "bounds", "llr", "llr_trinomial", "llr_pentanomial", "SPRT"]

#: The largest Elo difference a hypothesis may name (at 1,000 Elo the expected score is 0.997: beyond it no
#: number of games tells the hypotheses apart).
MAX_ELO = 1000.0


def expected_score(elo: float) -> float:
    """The logistic expected score of an ``elo`` advantage."""
    return 1.0 / (1.0 + 10.0 ** (-elo / 400.0))


def bounds(alpha: float, beta: float) -> tuple[float, float]:
    """Wald's bounds on the LLR: (accept H0 at or below, accept H1 at or above)."""
    if not (0 < alpha < 1 and 0 < beta < 1):
        raise ValueError(f"the error rates must be between 0 and 1, not alpha={alpha}, beta={beta}")
    if alpha + beta >= 1:  # the bounds would cross: a loss could accept H1
        raise ValueError(f"the error rates must add up to less than 1, not alpha={alpha}, beta={beta}")
    return math.log(beta / (1 - alpha)), math.log((1 - beta) / alpha)


#: The count given to a result value not seen yet (Fishtest's regularisation).
EPSILON = 1e-3


def _mle(values: list[float], counts: list[float], s: float) -> list[float]:
    """The most likely distribution on ``values`` with mean ``s`` given ``counts`` (all > 0, values on both sides)."""
    n = sum(counts)
    d = [v - s for v in values]
    # Σ n_i d_i / (1 + λ d_i) = 0, decreasing in λ on the interval where every 1 + λ d_i > 0
    lo = max((-1 / x for x in d if x > 0), default=-1e9)
    hi = min((-1 / x for x in d if x < 0), default=1e9)
    lo, hi = lo + 1e-12 * abs(lo), hi - 1e-12 * abs(hi)
    for _ in range(200):
        mid = (lo + hi) / 2
        if sum(c * x / (1 + mid * x) for c, x in zip(counts, d, strict=True)) > 0:
            lo = mid
        else:
            hi = mid
    lam = (lo + hi) / 2
    return [c / (n * (1 + lam * x)) for c, x in zip(counts, d, strict=True)]


def llr(counts: Mapping[float, float], elo0: float, elo1: float) -> float:
    """The GSPRT's LLR of H1 (``elo1``) against H0 (``elo0``) from ``{result value in [0, 1]: count}`` (counts of
    0 are left out; no regularisation here). 0 when the results cannot tell (all on one side of both means)."""
    items = sorted((v, float(c)) for v, c in counts.items() if c > 0)
    if not items:
        return 0.0
    values, cs = [v for v, _ in items], [c for _, c in items]
    s0, s1 = expected_score(elo0), expected_score(elo1)
    if not all(min(values) < s < max(values) for s in (s0, s1)):
        return 0.0
    p0, p1 = _mle(values, cs, s0), _mle(values, cs, s1)
    return sum(c * math.log(b / a) for c, a, b in zip(cs, p0, p1, strict=True))


def llr_trinomial(wins: int, draws: int, losses: int, elo0: float, elo1: float) -> float:
    """The LLR from single games' wins, draws and losses (of A)."""
    if wins + draws + losses == 0:
        return 0.0
    return llr({1.0: wins or EPSILON, 0.5: draws or EPSILON, 0.0: losses or EPSILON}, elo0, elo1)


def llr_pentanomial(pairs: tuple[int, int, int, int, int] | list[int], elo0: float, elo1: float) -> float:
    """The LLR from game pairs (colours swapped): ``pairs[k]`` pairs in which A scored ``k/2`` points."""
    if len(pairs) != 5:
        raise ValueError("pentanomial counts are 5 numbers: pairs scoring 0, ½, 1, 1½, 2 points")
    if sum(pairs) == 0:
        return 0.0
    return llr({k / 4: c or EPSILON for k, c in enumerate(pairs)}, elo0, elo1)


@dataclass
class SPRT:
    """A running trinomial SPRT: :meth:`add` each game's score of A (1, ½, 0), then read :attr:`status`. The
    verdict is the first crossing of a bound: games that end after it (played in parallel) are counted in
    :attr:`after`, not in the test.

    >>> t = SPRT(0, 400)
    >>> for _ in range(6): t.add(1.0)
    >>> t.status, t.wins
    ('H1', 5)
    >>> t.after
    1
    """

    elo0: float
    elo1: float
    alpha: float = 0.05
    beta: float = 0.05
    wins: int = 0
    draws: int = 0
    losses: int = 0
    decided: str | None = field(default=None, init=False)  # H0 or H1, once a bound was crossed
    after: int = field(default=0, init=False)  # games added after the verdict (not counted)

    def __post_init__(self) -> None:
        for name, v in (("elo0", self.elo0), ("elo1", self.elo1)):
            if not (math.isfinite(v) and abs(v) <= MAX_ELO):
                raise ValueError(f"{name} must be a number of Elo from {-MAX_ELO:g} to {MAX_ELO:g}, not {v}")
        if not self.elo1 > self.elo0:
            raise ValueError(f"the SPRT needs elo1 > elo0, not {self.elo0} and {self.elo1}")
        self.lower, self.upper = bounds(self.alpha, self.beta)

    def add(self, score: float) -> None:
        if self.decided is not None:
            self.after += 1
            return
        if score == 1.0:
            self.wins += 1
        elif score == 0.0:
            self.losses += 1
        else:
            self.draws += 1
        v = self.llr
        self.decided = "H1" if v >= self.upper else "H0" if v <= self.lower else None

    @property
    def llr(self) -> float:
        return llr_trinomial(self.wins, self.draws, self.losses, self.elo0, self.elo1)

    @property
    def status(self) -> str:
        """``H1`` (accepted: A is stronger by about ``elo1``), ``H0`` (accepted), or ``running``."""
        return self.decided or "running"

    def line(self) -> str:
        late = f"; {self.after} game(s) ended after the verdict, not counted" if self.after else ""
        return (f"SPRT elo0={self.elo0:g} elo1={self.elo1:g} alpha={self.alpha:g} beta={self.beta:g}: "
                f"{self.wins}-{self.draws}-{self.losses}, LLR {self.llr:.3f} "
                f"(bounds {self.lower:.3f}, {self.upper:.3f}): {self.status}{late}")
