"""How often things happen: patterns, win types, seats, roles, wild tiles.

Every table is tidy with the columns ``variant, rules_id, <subject>, per, n, k, rate,
lo, hi``: ``k`` events out of ``n`` deals (``per="deal"``) or ``n`` won deals
(``per="win"``), the rate ``k / n`` and its Wilson interval. Each function takes a
record frame or a :class:`~analysis.summary.Summary` (they are computed from the
summary's counts, so merged summaries give the same tables as the whole).
"""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from analysis._util import ROLE_NAMES, with_identity
from analysis.schema import WIN_TYPES
from analysis.stats import wilson
from analysis.summary import as_summary, register_tables
from engine.errors import UsageError

__all__ = [
    "pattern_frequencies",
    "win_type_frequencies",
    "seat_frequencies",
    "wilds_frequencies",
    "big_hand_frequency",
]

_COLS = ["per", "n", "k", "rate", "lo", "hi"]


def _row(per: str, n: int, k: int, level: float) -> dict:
    lo, hi = wilson(k, n, level)
    return {"per": per, "n": n, "k": k, "rate": k / n if n else float("nan"), "lo": lo, "hi": hi}


def pattern_frequencies(records, *, level: float = 0.95) -> pd.DataFrame:
    """Rate of each scoring pattern per deal and per won deal.

    Parameters
    ----------
    records : DataFrame or Summary
        Records of one variant and rule set.
    level : float
        Confidence level of the Wilson intervals.

    Returns
    -------
    DataFrame
        ``variant, rules_id, pattern, per, n, k, rate, lo, hi``; two rows per pattern
        (``per`` = ``deal`` then ``win``), patterns in name order.
    """
    s = as_summary(records)
    rows = []
    for name, k in zip(s.patterns, s.pattern_counts, strict=True):
        for per, n in (("deal", s.n_deals), ("win", s.n_wins)):
            rows.append({"pattern": name, **_row(per, n, k, level)})
    return with_identity(s.variant, s.rules_id, rows, ["pattern", *_COLS])


def win_type_frequencies(records, *, level: float = 0.95) -> pd.DataFrame:
    """Rate of each win type per deal (``none`` = drawn deal) and per won deal.

    Returns
    -------
    DataFrame
        ``variant, rules_id, win_type, per, n, k, rate, lo, hi``; per deal for every
        type of :data:`~analysis.schema.WIN_TYPES`, per win for all but ``none``.
    """
    s = as_summary(records)
    rows = []
    for per, n in (("deal", s.n_deals), ("win", s.n_wins)):
        for t, k in zip(WIN_TYPES, s.win_types, strict=True):
            if per == "win" and t == "none":
                continue
            rows.append({"win_type": t, **_row(per, n, k, level)})
    return with_identity(s.variant, s.rules_id, rows, ["win_type", *_COLS])


def seat_frequencies(records, *, by: str = "seat", level: float = 0.95) -> pd.DataFrame:
    """Win rates by absolute seat or by distance from the dealer.

    Parameters
    ----------
    records : DataFrame or Summary
    by : {"seat", "distance"}
        ``seat``: events ``win`` (per deal and per win = share of the wins),
        ``deal_in`` (fed a winning discard, per deal) and ``dealer`` (share of deals
        as dealer). ``distance``: events ``win`` per deal and per win by distance from
        the dealer (0 = dealer, 1 = 下家, ...), with a ``role`` label.
    level : float

    Returns
    -------
    DataFrame
        ``variant, rules_id, seat | distance, [role,] event, per, n, k, rate, lo, hi``.
    """
    s = as_summary(records)
    rows = []
    if by == "seat":
        for seat in range(s.players):
            rows.append(
                {
                    "seat": seat,
                    "event": "win",
                    **_row("deal", s.n_deals, s.wins_by_seat[seat], level),
                }
            )
            rows.append(
                {"seat": seat, "event": "win", **_row("win", s.n_wins, s.wins_by_seat[seat], level)}
            )
            rows.append(
                {
                    "seat": seat,
                    "event": "deal_in",
                    **_row("deal", s.n_deals, s.deal_ins_by_seat[seat], level),
                }
            )
            rows.append(
                {
                    "seat": seat,
                    "event": "dealer",
                    **_row("deal", s.n_deals, s.dealer_by_seat[seat], level),
                }
            )
        return with_identity(s.variant, s.rules_id, rows, ["seat", "event", *_COLS])
    if by != "distance":
        raise UsageError(f"by must be 'seat' or 'distance', not {by!r}")
    names = ROLE_NAMES[s.players]
    for dist in range(s.players):
        k = s.wins_by_distance[dist]
        for per, n in (("deal", s.n_deals), ("win", s.n_wins)):
            rows.append(
                {"distance": dist, "role": names[dist], "event": "win", **_row(per, n, k, level)}
            )
    return with_identity(s.variant, s.rules_id, rows, ["distance", "role", "event", *_COLS])


def wilds_frequencies(records, *, level: float = 0.95) -> pd.DataFrame:
    """Share of won deals by the number of wild tiles in the winner's hand.

    Returns
    -------
    DataFrame
        ``variant, rules_id, wilds, per, n, k, rate, lo, hi`` (``per = "win"``).
    """
    s = as_summary(records)
    rows = [{"wilds": w, **_row("win", s.n_wins, k, level)} for w, k in enumerate(s.wilds)]
    return with_identity(s.variant, s.rules_id, rows, ["wilds", *_COLS])


def big_hand_frequency(records, big: Sequence[str], *, level: float = 0.95) -> pd.DataFrame:
    """Rate of "big hands": won deals with at least one of the ``big`` patterns.

    Parameters
    ----------
    records : DataFrame or Summary
    big : sequence of str
        Pattern names (with or without the ``pat_`` prefix) that the variant calls big.
    level : float

    Returns
    -------
    DataFrame
        ``variant, rules_id, pattern, per, n, k, rate, lo, hi`` with ``pattern = "big"``,
        one row per deal and one per win.

    Raises
    ------
    UsageError
        A name in ``big`` is not a pattern of these records.
    """
    s = as_summary(records)
    names = [b[4:] if b.startswith("pat_") else b for b in big]
    unknown = [b for b in names if b not in s.patterns]
    if unknown:
        raise UsageError(f"{s.variant}: no pattern(s) {', '.join(unknown)}")
    mask = sum(1 << s.patterns.index(b) for b in names)
    k = sum(c for key, c in s.pattern_combos.items() if int(key, 16) & mask)
    rows = [
        {"pattern": "big", **_row(per, n, k, level)}
        for per, n in (("deal", s.n_deals), ("win", s.n_wins))
    ]
    return with_identity(s.variant, s.rules_id, rows, ["pattern", *_COLS])


def _roles(records) -> pd.DataFrame:
    return seat_frequencies(records, by="distance")


register_tables(
    patterns=pattern_frequencies,
    win_types=win_type_frequencies,
    seats=seat_frequencies,
    roles=_roles,
    wilds=wilds_frequencies,
)
