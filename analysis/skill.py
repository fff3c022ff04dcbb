"""Skill vs luck: the strong policy's edge, plain and in duplicate seating.

Input: records of the same deals (same ``run_seed``, ``match``, ``deal``) played in
several seatings, one strong policy against weaker ones: a mapping ``{seating key:
records}``, or one frame with a column saying which seat held the strong policy in each
row (default ``strong_seat``). The engine's per-deal streams make the walls of a deal
identical in every seating, so averaging the strong player's result over the seatings
of a match (*duplicate* format) cancels most of the luck of the tiles.

Seat by seat (``seating="seat"``), the dealer sequence of a match drifts apart between
seatings after the first deal the two policies play differently, and from then on a
deal's seatings no longer give the strong policy each role's cards once. Runs played
with ``seating="dealer"`` (:func:`engine.runs.run.simulate`) read the policies by place from
each deal's dealer, so seating ``j`` gives the strong policy the cards of place ``j`` on
every wall however the dealer moves: the duplicate format proper.

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
from analysis.stats import format_pm, ratio_ci
from engine.errors import UsageError
from engine.runs.run import place_seats

__all__ = ["duplicate_gain", "duplicate_match_means", "skill_edge", "strong_seats"]

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


def strong_seats(records: pd.DataFrame, place: int, seating: str = "seat") -> np.ndarray:
    """The seat the strong policy held in each row of one seating's records.

    ``seating="seat"``: ``place`` is that seat in every row. ``seating="dealer"`` (runs
    played with ``seating="dealer"``, where policies are read by place from each deal's
    dealer): the seat ``(dealer + place) % players`` of each row.
    """
    players = schema.layout(records).players if seating == "dealer" else 0
    return place_seats(records["dealer"].to_numpy(), place, players, seating)


def _frame(records, strong_seat, seating) -> tuple[pd.DataFrame, np.ndarray, np.ndarray]:
    """``(records, strong seat per row, seating key per row)``."""
    if isinstance(records, Mapping):
        if not records:
            raise UsageError("no skill runs given")
        parts, seats, keys = [], [], []
        for key, f in records.items():
            parts.append(f)
            seats.append(strong_seats(f, int(key), seating))
            keys.append(np.full(len(f), int(key), np.int64))
        return pd.concat(parts, ignore_index=True), np.concatenate(seats), np.concatenate(keys)
    if seating == "dealer":
        raise UsageError('seating="dealer" needs a mapping {place from the dealer: records}')
    if isinstance(strong_seat, str):
        if strong_seat not in records.columns:
            raise UsageError(f"records have no {strong_seat!r} column naming the strong seat")
        seat = records[strong_seat].to_numpy().astype(np.int64)
        return records, seat, seat
    if strong_seat is None:
        raise UsageError("say which seat held the strong policy (strong_seat=...)")
    seat = np.full(len(records), int(strong_seat), np.int64)
    return records, seat, seat


def _ratio(t: np.ndarray, m: np.ndarray, level: float) -> dict:
    r = ratio_ci(t, m, level)
    return {"edge": r["estimate"], "se": r["se"], "lo": r["lo"], "hi": r["hi"]}


def _match_totals(df: pd.DataFrame, seat: np.ndarray, key: np.ndarray):
    """The strong player's total ``t`` and deals ``m`` of each match of each seating,
    indexed by ``(seating, run_seed, match)``.
    """
    lay = schema.layout(df)
    if ((seat < 0) | (seat >= lay.players)).any():
        raise UsageError(f"strong seat outside 0..{lay.players - 1}")
    x = schema.deltas(df, lay)[np.arange(len(df)), seat].astype(np.float64)
    frame = pd.DataFrame(
        {
            "seating": key,
            "run_seed": df["run_seed"].to_numpy(),
            "match": df["match"].to_numpy(),
            "x": x,
        }
    )
    per = frame.groupby(["seating", "run_seed", "match"], sort=True).agg(
        t=("x", "sum"), m=("x", "size")
    )
    return per


def skill_edge(
    records,
    *,
    strong_seat: str | int | None = "strong_seat",
    seating: str = "seat",
    level: float = 0.95,
    ahead: float = 0.95,
) -> pd.DataFrame:
    """The strong policy's edge per deal and the matches it needs to finish ahead.

    Parameters
    ----------
    records : DataFrame or mapping of int to DataFrame
        Paired records (see the module docstring): one frame with a column naming the
        strong seat of each row, or ``{seating key: records}``, one run per seating.
    strong_seat : str or int
        For a single frame: the column naming the strong seat of each row, or one seat
        for all rows.
    seating : {"seat", "dealer"}
        How a mapping's keys place the strong policy: ``"seat"``, the key is its seat;
        ``"dealer"`` (runs played with ``seating="dealer"``), the key is its place from
        each deal's dealer, so the strong policy holds the same role's cards in every
        deal of that seating (:func:`strong_seats`).
    level : float
        Confidence level.
    ahead : float
        Target probability of finishing ahead (total > 0) for ``matches``.

    Returns
    -------
    DataFrame
        One row per format (``single``, then ``duplicate`` when there are two seatings
        or more): ``variant, rules_id, format, seatings, n_matches, n_deals (the deals
        the row's estimate uses, every seating's for duplicate), edge, se,
        lo, hi, match_mean, match_sd, snr, snr_lo, snr_hi, ahead, matches, matches_lo,
        matches_hi, verdict``.

    Notes
    -----
    ``duplicate`` averages each match over its seatings (the seatings of a match share
    its walls) and takes that average as the unit. ``single`` is what ordinary play of
    the same matches would give: each match counted in one seating only (match ``i`` of
    the sorted matches in seating ``i mod S``), so its units are independent and its
    interval is valid; it uses ``1/S`` of the deals. The seatings of one match are
    strongly correlated (the same walls), so pooling all of them as if independent
    would give intervals too narrow. To compare the formats per deal played, the
    report's *duplicate gain* is ``(se_single² × deals_single) / (se_duplicate² ×
    deals_duplicate)``: how many times more deals single seating needs for the same
    precision.

    ``edge`` is points per deal over the strong player's own zero (the mean of the
    table is 0, so it is also the gain over the average seat times ``(P-1)/P``).
    ``match_sd`` is the SD of the strong player's total over one match in ordinary
    (non-duplicate) play, the noise a real series faces (every seating's matches
    estimate it); ``snr = match_mean / match_sd``. After K matches the total is
    approximately normal with mean ``K match_mean`` and SD ``sqrt(K) match_sd``
    (matches independent), so the strong player is ahead with probability ``ahead``
    once ``K >= (z / snr)²`` with ``z = Φ⁻¹(ahead)``; ``matches_lo/hi`` carry the edge's
    interval into K (infinite when the interval reaches 0).
    """
    df, seat, key = _frame(records, strong_seat, seating)
    variant, rules_id = schema.identity(df)
    per = _match_totals(df, seat, key)
    keys = np.sort(per.index.get_level_values(0).unique().to_numpy())
    seatings = int(keys.size)
    t, m = per["t"].to_numpy(), per["m"].to_numpy().astype(float)
    match_sd = float(t.std(ddof=1)) if t.size > 1 else math.nan
    if seatings == 1:
        rows = [_row("single", seatings, t, m, match_sd, level, ahead)]
        return with_identity(variant, rules_id, rows, _COLS)
    # single: each match in one seating only, turn by turn over the sorted matches
    matches = per.index.droplevel(0)
    order = pd.MultiIndex.from_tuples(sorted(set(matches))).get_indexer(matches)
    mine = per.index.get_level_values(0).to_numpy() == keys[order % seatings]
    rows = [_row("single", seatings, t[mine], m[mine], match_sd, level, ahead)]
    g = per.groupby(level=["run_seed", "match"])
    full = g.size() == seatings
    dup = g.mean()[full.to_numpy()]
    t_dup, m_dup = dup["t"].to_numpy(), dup["m"].to_numpy()
    rows.append(_row("duplicate", seatings, t_dup, m_dup, match_sd, level, ahead))
    rows[-1]["n_deals"] = int(round(m_dup.sum() * seatings))  # every seating's deals
    return with_identity(variant, rules_id, rows, _COLS)


def duplicate_match_means(
    frames: Mapping[int, pd.DataFrame], seating: str = "seat"
) -> pd.DataFrame:
    """The strong player's match total and deals, averaged over the seatings of a match.

    ``frames`` is ``{seating key: records}`` as for :func:`skill_edge`. Returns a frame
    indexed by ``(run_seed, match)`` with ``t`` (mean total over the seatings) and ``m``
    (mean deals), only for matches every seating played: the duplicate format's units.
    """
    per = _match_totals(*_frame(frames, None, seating))
    g = per.groupby(level=["run_seed", "match"])
    full = (g.size() == len(frames)).to_numpy()
    return g.mean()[full]


def duplicate_gain(table: pd.DataFrame) -> float | None:
    """How many times more deals single seating needs for duplicate's precision.

    ``table`` is :func:`skill_edge`'s result; ``None`` without a duplicate row or when
    an SE is 0 or missing.
    """
    t = table.set_index("format") if "format" in table.columns else table
    if "duplicate" not in t.index or "single" not in t.index:
        return None
    s, d = t.loc["single"], t.loc["duplicate"]
    den = d["se"] ** 2 * d["n_deals"]
    if not (den > 0) or not np.isfinite(s["se"]):
        return None
    return float(s["se"] ** 2 * s["n_deals"] / den)


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
    if not math.isfinite(matches):
        tail = "it is not expected to finish ahead"
    elif r["lo"] > 0:
        tail = (
            f"it finishes ahead {ahead:.0%} of the time after {math.ceil(matches)} matches "
            f"(normal approximation)"
        )
    else:  # the edge is not resolved from 0: no number of matches is claimed
        tail = (
            f"its edge is not resolved from 0 at this N, so no number of matches to be ahead "
            f"is claimed (at the estimate: {math.ceil(matches)})"
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
