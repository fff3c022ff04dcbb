"""The bot ladder: each policy against the one below it, in duplicate seating.

``ladder(variant)`` plays each adjacent pair of policies (``random`` < ``efficiency`` <
``value`` < ``strong``, as far as the variant has them): the stronger policy in one
place, the weaker in the others, the stronger one in each place in turn on the same
walls (the engine's per-deal streams deal the same tiles in every seating). A place is
counted from each deal's dealer (``seating="dealer"`` runs), so on every wall the
stronger policy holds each role's cards once however the dealer moves. Per rung
it gives the stronger policy's edge per deal and per match, and, side by side for the
two, the win rate, the deal-in rate (wins fed by a discard or a robbed kong; in 字牌 a
discard won on, 包赔, not a card its seat flipped), the draw rate and the mean value per
win, with the difference of the two and its interval.

Every interval takes the match, averaged over the seatings, as its unit (the deals of
a match depend on each other through the dealer and his streak; the seatings of one
match share its walls), with ratio estimators for per-deal and per-win figures. A rung
*holds* when the edge's interval lies above 0.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from analysis.stats import ratio_ci
from engine.errors import UsageError

__all__ = ["LADDER", "Ladder", "ladder", "rung_frames", "rung_row"]

LADDER = ("random", "efficiency", "value", "strong")
"""Policies from weakest to strongest."""


def _ratio(y: np.ndarray, x: np.ndarray, level: float) -> tuple[float, float, float]:
    """Ratio ``sum y / sum x`` over clusters with a linearised standard error: est, lo, hi."""
    r = ratio_ci(y, x, level)
    return r["estimate"], r["lo"], r["hi"]


@dataclass
class Ladder:
    """The ladder of one variant: ``rungs`` (one row per adjacent pair) and its identity."""

    variant: str
    rules: dict
    deals: int
    seed: int
    level: float
    rungs: pd.DataFrame = field(repr=False)

    def holds(self) -> bool:
        """Whether every rung's edge interval lies above 0."""
        return bool((self.rungs["edge_lo"] > 0).all())

    def to_dict(self) -> dict:
        """A JSON-able form (``mjlab ladder --json``)."""
        from analysis._util import jsonable

        return {
            "variant": self.variant,
            "rules": self.rules,
            "deals_per_seating": self.deals,
            "seed": self.seed,
            "level": self.level,
            "holds": self.holds(),
            "rungs": jsonable(self.rungs),
        }

    def text(self) -> str:
        """The ladder as plain-language lines."""
        lines = [
            f"{self.variant}: duplicate seating, {self.deals:,} deals per seating, seed "
            f"{self.seed}, {self.level:.0%} intervals (unit: the match)"
        ]
        for r in self.rungs.itertuples():
            verdict = (
                "holds"
                if r.edge_lo > 0
                else ("reversed" if r.edge_hi < 0 else "tied: not resolved")
            )
            lines.append(
                f"  {r.strong} over {r.weak}: {r.edge:+.3f} [{r.edge_lo:+.3f}, {r.edge_hi:+.3f}] "
                f"points per deal, {r.match_edge:+.2f} [{r.match_lo:+.2f}, {r.match_hi:+.2f}] "
                f"per match ({verdict})"
            )
            for side in ("strong", "weak"):
                name = getattr(r, side)
                lines.append(
                    f"    {name:10s} win {getattr(r, side + '_win'):.3f}  deal-in "
                    f"{getattr(r, side + '_dealin'):.3f}  value/win "
                    f"{getattr(r, side + '_value'):.2f}"
                )
            lines.append(
                f"    deal-in difference {r.dealin_diff:+.4f} [{r.dealin_lo:+.4f}, "
                f"{r.dealin_hi:+.4f}]; win difference {r.win_diff:+.4f} [{r.win_lo:+.4f}, "
                f"{r.win_hi:+.4f}]; draws {r.draw_rate:.3f}"
            )
        return "\n".join(lines)


def rung_frames(
    variant, resolved, strong, weak, deals, seed, *, workers=None, match_length=16,
    params=None, bar=None,
) -> dict[int, pd.DataFrame]:  # fmt: skip
    """The runs of one rung: ``{place from the dealer: records}``, ``strong`` in that place.

    ``variant`` is a Variant, ``resolved`` its resolved rules; ``params`` maps a policy
    to parameter overrides for every place playing it; ``bar`` (a tqdm bar) advances by
    ``deals`` per run.
    """
    from engine.runs.run import simulate

    params = params or {}
    seats = variant.n_players(resolved)
    out = {}
    for s in range(seats):
        pols = [weak] * seats
        pols[s] = strong
        over = {i: params[p] for i, p in enumerate(pols) if p in params}
        out[s] = simulate(
            variant.name, deals, seed=seed, rules=resolved, policies=pols, workers=workers,
            progress=False, match_length=match_length, bot_params=over or None,
            seating="dealer",
        ).to_pandas()  # fmt: skip
        if bar is not None:
            bar.update(deals)
    return out


def rung_row(frames: dict[int, pd.DataFrame], strong: str, weak: str, level: float = 0.95) -> dict:
    """One rung of the ladder from its runs (:func:`rung_frames`): edges and side-by-side rates."""
    from analysis import schema
    from analysis.skill import strong_seats

    seats = len(frames)
    n_match = max(int(df["match"].max()) + 1 for df in frames.values())
    acc: dict[str, np.ndarray] = {}
    for s, df in frames.items():
        lay = schema.layout(df)
        d = schema.deltas(df, lay)
        ss = strong_seats(df, s, "dealer")  # the stronger policy keeps place s from the dealer
        winner = df["winner"].to_numpy()
        disc = df["discarder"].to_numpy()
        if "win_on_flip" in df:  # 字牌: a win on a flipped card is paid by all, not fed
            disc = np.where(df["win_on_flip"].to_numpy() == 1, -1, disc)
        value = df["value"].to_numpy().astype(np.float64)
        match = df["match"].to_numpy()
        is_s = winner == ss
        is_f = (winner >= 0) & ~is_s
        parts = {
            "n": np.ones(len(df)),
            "delta": d[np.arange(len(df)), ss].astype(np.float64),
            "s_win": is_s.astype(float),
            "f_win": is_f.astype(float) / (seats - 1),
            "s_dealin": (disc == ss).astype(float),
            "f_dealin": ((disc >= 0) & (disc != ss)).astype(float) / (seats - 1),
            "s_value": np.where(is_s, value, 0.0),
            "f_value": np.where(is_f, value, 0.0),
            "f_wins": is_f.astype(float),
            "draw": (winner < 0).astype(float),
        }
        for k, x in parts.items():
            sums = np.bincount(match, weights=x, minlength=n_match)
            acc[k] = sums if k not in acc else acc[k] + sums
    n = acc["n"]
    edge, lo, hi = _ratio(acc["delta"], n, level)
    mbar = float(n.mean()) / seats
    row = {"strong": strong, "weak": weak, "seatings": seats, "matches": int(n.size)}
    row.update(edge=edge, edge_lo=lo, edge_hi=hi)
    row.update(match_edge=edge * mbar, match_lo=lo * mbar, match_hi=hi * mbar)
    for side, key in (("strong", "s"), ("weak", "f")):
        row[side + "_win"] = _ratio(acc[key + "_win"], n, level)[0]
        row[side + "_dealin"] = _ratio(acc[key + "_dealin"], n, level)[0]
        wins = acc["s_win"] if key == "s" else acc["f_wins"]
        row[side + "_value"] = _ratio(acc[key + "_value"], wins, level)[0]
    for what in ("win", "dealin"):
        diff, dlo, dhi = _ratio(acc["s_" + what] - acc["f_" + what], n, level)
        row[what + "_diff"], row[what + "_lo"], row[what + "_hi"] = diff, dlo, dhi
    row["draw_rate"] = _ratio(acc["draw"], n, level)[0]
    return row


def _rung(variant, resolved, strong, weak, deals, seed, workers, match_length, bar, level, params):
    frames = rung_frames(
        variant, resolved, strong, weak, deals, seed, workers=workers,
        match_length=match_length, params=params, bar=bar,
    )  # fmt: skip
    return rung_row(frames, strong, weak, level)


def ladder(
    variant: str,
    deals: int = 40_000,
    seed: int = 1,
    rules: dict | None = None,
    policies: Sequence[str] | None = None,
    workers: int | None = None,
    match_length: int = 16,
    level: float = 0.95,
    progress: bool = True,
    params: dict | None = None,
) -> Ladder:
    """Play the ladder of ``variant`` (module docstring); ``deals`` per seating.

    ``policies`` (weakest first) defaults to the variant's policies in LADDER order;
    ``params`` maps a policy to parameter overrides for every seat playing it.
    """
    from engine.variants import get

    v = get(variant)
    resolved = v.resolve(rules)
    if policies is None:
        policies = [p for p in LADDER if p in v.policies]
    policies = list(policies)
    for p in policies:
        if p not in v.policies:
            raise UsageError(f"unknown policy {p!r}; policies: {', '.join(v.policies)}")
    if len(policies) < 2:
        raise UsageError("a ladder needs at least two policies")
    if isinstance(deals, bool) or not isinstance(deals, int) or deals < 2 * match_length:
        raise UsageError(f"--deals must be an integer of at least {2 * match_length}")
    from engine.runs.run import MAX_MATCHES, MAX_SEED, MAX_WORKERS, _check_int

    # checked before the bar starts, so a bad value gets its one line alone
    seed = _check_int("--seed", seed, 0, MAX_SEED)
    _check_int("--deals", deals, 2 * match_length, MAX_MATCHES)
    if workers is not None:
        _check_int("--workers", workers, 1, MAX_WORKERS)
    seats = v.n_players(resolved)
    bar = None
    if progress:
        from tqdm.auto import tqdm

        total = deals * seats * (len(policies) - 1)
        bar = tqdm(total=total, unit="deal", unit_scale=True, desc=f"ladder {variant}")
    try:
        rows = [
            _rung(v, resolved, hi, lo, deals, seed, workers, match_length, bar, level, params or {})
            for lo, hi in zip(policies, policies[1:], strict=False)
        ]
    finally:
        if bar is not None:
            bar.close()
    return Ladder(v.name, resolved, deals, seed, level, pd.DataFrame(rows))
