"""Skill vs luck: the strong policy's edge, plain and in duplicate seating.

Input: records of the same deals (same ``run_seed``, ``match``, ``deal``) played in
several seatings, one strong policy against weaker ones, with a column saying which seat
held the strong policy in each row (default ``strong_seat``), or a mapping
``{strong seat: frame}``. The engine's per-deal streams make the walls of a deal
identical in every seating, so averaging the strong player's result over the seatings
of a match (*duplicate* format) cancels most of the luck of the tiles.

The unit of every interval is the match (a match in one seating for the plain format,
a match averaged over its seatings for duplicate), so dependence between the deals of a
match is accounted for; the per-deal edge is a ratio estimator (points over deals).
"""

from __future__ import annotations

import math
from collections.abc import Mapping

import numpy as np
import pandas as pd
from scipy import stats as _st

from analysis import schema
from analysis._util import with_identity
from analysis.stats import format_pm
from engine.errors import UsageError

__all__ = ["skill_edge"]

_COLS = [
    "format",
    "seatings",
    "n_matches",
    "n_deals",
    "edge",
    "se",
    "lo",
    "hi",
    "match_mean",
    "match_sd",
    "snr",
    "snr_lo",
    "snr_hi",
    "ahead",
    "matches",
    "matches_lo",
    "matches_hi",
    "verdict",
]


def _frame(records, strong_seat) -> tuple[pd.DataFrame, str]:
    if isinstance(records, Mapping):
        parts = []
        for seat, f in records.items():
            parts.append(f.assign(_strong=np.int64(seat)))
        return pd.concat(parts, ignore_index=True), "_strong"
    if isinstance(strong_seat, str):
        if strong_seat not in records.columns:
            raise UsageError(f"records have no {strong_seat!r} column naming the strong seat")
        return records, strong_seat
    if strong_seat is None:
        raise UsageError("say which seat held the strong policy (strong_seat=...)")
    return records.assign(_strong=np.int64(strong_seat)), "_strong"


def _ratio(t: np.ndarray, m: np.ndarray, level: float) -> dict:
    n = t.size
    edge = float(t.sum() / m.sum())
    if n < 2:
        return {"edge": edge, "se": math.nan, "lo": math.nan, "hi": math.nan}
    u = t - edge * m
    se = float(math.sqrt((u * u).sum() / (n * (n - 1))) / m.mean())
    q = float(_st.t.ppf(0.5 + level / 2, n - 1))
    return {"edge": edge, "se": se, "lo": edge - q * se, "hi": edge + q * se}


def skill_edge(
    records,
    *,
    strong_seat: str | int | None = "strong_seat",
    level: float = 0.95,
    ahead: float = 0.95,
) -> pd.DataFrame:
    """The strong policy's edge per deal and the matches it needs to finish ahead.

    Parameters
    ----------
    records : DataFrame or mapping of int to DataFrame
        Paired records (see the module docstring).
    strong_seat : str or int
        Column naming the strong seat of each row, or one seat for all rows.
    level : float
        Confidence level.
    ahead : float
        Target probability of finishing ahead (total > 0) for ``matches``.

    Returns
    -------
    DataFrame
        One row per format (``single``, then ``duplicate`` when there are two seatings
        or more): ``variant, rules_id, format, seatings, n_matches, n_deals, edge, se,
        lo, hi, match_mean, match_sd, snr, snr_lo, snr_hi, ahead, matches, matches_lo,
        matches_hi, verdict``.

    Notes
    -----
    ``edge`` is points per deal over the strong player's own zero (the mean of the
    table is 0, so it is also the gain over the average seat times ``(P-1)/P``).
    ``match_sd`` is the SD of the strong player's total over one match in ordinary
    (non-duplicate) play, the noise a real series faces; ``snr = match_mean /
    match_sd``. After K matches the total is approximately normal with mean
    ``K match_mean`` and SD ``sqrt(K) match_sd`` (matches independent), so the strong
    player is ahead with probability ``ahead`` once ``K >= (z / snr)²`` with
    ``z = Φ⁻¹(ahead)``; ``matches_lo/hi`` carry the edge's interval into K (infinite
    when the interval reaches 0).
    """
    df, col = _frame(records, strong_seat)
    variant, rules_id = schema.identity(df)
    lay = schema.layout(df)
    d = schema.deltas(df, lay)
    seat = df[col].to_numpy().astype(np.int64)
    if ((seat < 0) | (seat >= lay.players)).any():
        raise UsageError(f"strong seat outside 0..{lay.players - 1}")
    x = d[np.arange(len(df)), seat].astype(np.float64)
    frame = pd.DataFrame(
        {
            "seating": seat,
            "run_seed": df["run_seed"].to_numpy(),
            "match": df["match"].to_numpy(),
            "x": x,
        }
    )
    per = frame.groupby(["seating", "run_seed", "match"], sort=True).agg(
        t=("x", "sum"), m=("x", "size")
    )
    seatings = int(per.index.get_level_values(0).nunique())
    t, m = per["t"].to_numpy(), per["m"].to_numpy().astype(float)
    match_sd = float(t.std(ddof=1)) if t.size > 1 else math.nan
    rows = [_row("single", seatings, t, m, match_sd, level, ahead)]
    if seatings > 1:
        g = per.groupby(level=["run_seed", "match"])
        full = g.size() == seatings
        dup = g.mean()[full.to_numpy()]
        rows.append(
            _row(
                "duplicate",
                seatings,
                dup["t"].to_numpy(),
                dup["m"].to_numpy(),
                match_sd,
                level,
                ahead,
            )
        )
    return with_identity(variant, rules_id, rows, _COLS)


def _row(fmt, seatings, t, m, match_sd, level, ahead) -> dict:
    r = _ratio(t, m, level)
    mbar = float(m.mean())
    z = float(_st.norm.ppf(ahead))
    snr = r["edge"] * mbar / match_sd if match_sd > 0 else math.nan
    snr_lo = r["lo"] * mbar / match_sd if match_sd > 0 else math.nan
    snr_hi = r["hi"] * mbar / match_sd if match_sd > 0 else math.nan

    def k(s):
        return (z / s) ** 2 if s > 0 else math.inf

    matches = k(snr)
    verb, mag = ("gains", r["edge"]) if r["edge"] >= 0 else ("loses", -r["edge"])
    half = (r["hi"] - r["lo"]) / 2
    tail = (
        f"it finishes ahead {ahead:.0%} of the time after {math.ceil(matches)} matches "
        f"(normal approximation)"
        if math.isfinite(matches)
        else "it is not expected to finish ahead"
    )
    verdict = f"the strong policy {verb} {format_pm(mag, half)} points per deal ({fmt}); {tail}"
    return {
        "format": fmt,
        "seatings": seatings,
        "n_matches": int(t.size),
        "n_deals": int(round(m.sum())),
        **r,
        "match_mean": r["edge"] * mbar,
        "match_sd": match_sd,
        "snr": snr,
        "snr_lo": snr_lo,
        "snr_hi": snr_hi,
        "ahead": ahead,
        "matches": matches,
        "matches_lo": k(snr_hi),
        "matches_hi": k(snr_lo),
        "verdict": verdict,
    }
