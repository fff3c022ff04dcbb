"""The per-deal record schema (DESIGN.md) as the analysis layer reads it.

A record frame has one row per deal and the columns below; ``pat_<name>`` columns are
the variant's scoring patterns and any other numeric column is a variant extra
(``horses``, ``kongs``...). :func:`layout` reads what a frame holds from its column
names only (cheap, done by every analysis function); :func:`validate_records` also
checks the data (done once, by :func:`analysis.load`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from engine.errors import UsageError
from engine.play.records import FIXED_COLUMNS

__all__ = [
    "IDENTITY",
    "REQUIRED",
    "WIN_TYPES",
    "BOOKKEEPING",
    "Layout",
    "layout",
    "identity",
    "validate_records",
    "win_type_codes",
    "deltas",
    "stack_deltas",
]

IDENTITY = ("run_seed", "match", "deal")
"""Columns that identify a deal across runs with the same seed (the pairing key)."""

REQUIRED = FIXED_COLUMNS
"""Columns every record frame has, besides ``delta_*`` and ``pat_*``: the engine's
(:data:`engine.play.records.FIXED_COLUMNS`), whose first three are :data:`IDENTITY`."""

BOOKKEEPING = frozenset(
    {
        "score_in",
        "alt_tai",
        "kong_tally_0",
        "kong_tally_1",
        "kong_tally_2",
        "kong_tally_3",
        "horse_tiles",
        "kong_feeder",
        "jin",
        "xing_card",
        "xing_raw",
        "wang_held",
    }
)
"""Extra record columns that are codes, bit fields or sentinels a re-score reads (the
inputs of its scoring), not results: their mean per deal means nothing, so the summaries
leave them out."""

WIN_TYPES = ("self_draw", "discard", "rob_kong", "kong_draw", "instant", "none")
"""The ``win_type`` values, in the order used by every table (``none`` = drawn deal)."""

AUXILIARY = ("strong_seat",)
"""Columns that analysis helpers read when present but that are not variant extras."""

_INT_COLUMNS = ("run_seed", "match", "deal", "dealer", "dealer_streak", "winner", "discarder")
_NUMERIC_COLUMNS = ("turns", "wilds_in_hand", "value")


@dataclass(frozen=True)
class Layout:
    """What a record frame holds, read from its column names.

    Attributes
    ----------
    players : int
        Number of seats (``delta_0 .. delta_{players-1}``).
    patterns : tuple of str
        Pattern names (without the ``pat_`` prefix), sorted.
    extras : tuple of str
        Numeric variant extras (every other numeric column), sorted.
    """

    players: int
    patterns: tuple[str, ...]
    extras: tuple[str, ...]

    @property
    def delta_columns(self) -> list[str]:
        """``["delta_0", ..., "delta_{P-1}"]``."""
        return [f"delta_{s}" for s in range(self.players)]

    @property
    def pattern_columns(self) -> list[str]:
        """``["pat_<name>", ...]`` in :attr:`patterns` order."""
        return [f"pat_{p}" for p in self.patterns]


def layout(df: pd.DataFrame) -> Layout:
    """Read the players, patterns and extras of a record frame from its columns.

    Raises
    ------
    UsageError
        A required column is missing or the ``delta_*`` columns are not ``delta_0``
        .. ``delta_{P-1}`` with 2 <= P <= 4.
    """
    cols = list(df.columns)
    missing = [c for c in REQUIRED if c not in df.columns]
    if missing:
        raise UsageError(f"not a mjlab record frame: missing column(s) {', '.join(missing)}")
    seats = sorted(int(c[6:]) for c in cols if c.startswith("delta_") and c[6:].isdigit())
    if not seats or seats != list(range(len(seats))) or not 2 <= len(seats) <= 4:
        raise UsageError(
            "not a mjlab record frame: expected columns delta_0..delta_{P-1} with 2 <= P <= 4, "
            f"found {['delta_' + str(s) for s in seats] or 'none'}"
        )
    patterns = tuple(sorted(c[4:] for c in cols if c.startswith("pat_")))
    known = set(REQUIRED) | set(AUXILIARY) | {f"delta_{s}" for s in seats}
    dtypes = dict(zip(cols, df.dtypes, strict=True))  # not a Series (and its attrs) per column
    extras = tuple(
        sorted(
            c
            for c in cols
            if c not in known
            and not c.startswith("pat_")
            and (
                pd.api.types.is_numeric_dtype(dtypes[c])
                and not pd.api.types.is_bool_dtype(dtypes[c])
            )
        )
    )
    return Layout(players=len(seats), patterns=patterns, extras=extras)


def identity(df: pd.DataFrame) -> tuple[str, str]:
    """The single ``(variant, rules_id)`` of a frame.

    Raises
    ------
    UsageError
        The frame is empty or mixes variants or rule sets.
    """
    if len(df) == 0:
        raise UsageError("no records: the frame is empty")
    out = []
    for col in ("variant", "rules_id"):
        s = df[col]
        first = s.iloc[0]
        if not (s == first).all():
            vals = sorted(map(str, pd.unique(s)))[:5]
            raise UsageError(
                f"records mix several {col} values ({', '.join(vals)}); analyse them apart"
            )
        out.append(str(first))
    return out[0], out[1]


def win_type_codes(s: pd.Series) -> np.ndarray:
    """``win_type`` as int8 codes into :data:`WIN_TYPES` (-1 for an unknown value)."""
    from engine.play.records import name_codes

    return name_codes(s, WIN_TYPES).astype(np.int8)


def deltas(df: pd.DataFrame, lay: Layout) -> np.ndarray:
    """The ``(n, P)`` delta matrix (int64 when the columns are integers, else float64)."""
    return stack_deltas([df[c].to_numpy() for c in lay.delta_columns])


def stack_deltas(cols: list[np.ndarray]) -> np.ndarray:
    """Stack per-seat delta arrays into ``(n, P)``: int64 if all are integers, else float64."""
    is_int = all(np.issubdtype(c.dtype, np.integer) for c in cols)
    return np.column_stack(cols).astype(np.int64 if is_int else np.float64, copy=False)


def validate_records(df: pd.DataFrame, *, source: str = "records") -> Layout:
    """Check a record frame against the DESIGN schema and its invariants.

    Checks: required columns and dtypes, one variant and rules_id, seats in range,
    ``winner``/``win_type``/``discarder`` consistent, ``pat_*`` only on won deals,
    deltas summing to 0, and no deal identity ``(run_seed, match, deal)`` twice.

    Parameters
    ----------
    df : DataFrame
        The records.
    source : str
        Named in error messages (a file name).

    Returns
    -------
    Layout

    Raises
    ------
    UsageError
        With a one-line message naming the first problem found.
    """
    try:
        lay = layout(df)
    except UsageError as exc:
        raise UsageError(f"{source}: {exc}") from None

    def fail(msg):
        raise UsageError(f"{source}: {msg}")

    for c in _INT_COLUMNS:
        if not pd.api.types.is_integer_dtype(df[c]):
            fail(f"column {c} should hold integers, not {df[c].dtype}")
    for c in (*_NUMERIC_COLUMNS, *lay.delta_columns):
        if not pd.api.types.is_numeric_dtype(df[c]) or pd.api.types.is_bool_dtype(df[c]):
            fail(f"column {c} should be numeric, not {df[c].dtype}")
    for c in lay.pattern_columns:
        if not pd.api.types.is_bool_dtype(df[c]):
            fail(f"pattern column {c} should be boolean, not {df[c].dtype}")
    if len(df) == 0:
        fail("no records")
    try:
        identity(df)
    except UsageError as exc:
        fail(str(exc))
    p = lay.players
    winner = df["winner"].to_numpy()
    dealer = df["dealer"].to_numpy()
    discarder = df["discarder"].to_numpy()
    if ((winner < -1) | (winner >= p)).any():
        fail(f"winner outside -1..{p - 1}")
    if ((dealer < 0) | (dealer >= p)).any():
        fail(f"dealer outside 0..{p - 1}")
    if ((discarder < -1) | (discarder >= p)).any():
        fail(f"discarder outside -1..{p - 1}")
    codes = win_type_codes(df["win_type"])
    if (codes < 0).any():
        bad = sorted(set(map(str, pd.unique(df["win_type"][codes < 0]))))[:3]
        fail(f"unknown win_type {', '.join(bad)} (expected one of {', '.join(WIN_TYPES)})")
    drawn = winner < 0
    if ((codes == WIN_TYPES.index("none")) != drawn).any():
        fail("win_type 'none' must go with winner -1 and only with it")
    fed = codes == WIN_TYPES.index("discard")
    if (fed & (discarder < 0)).any():
        fail("a discard win without a discarder")
    if ((discarder >= 0) & (discarder == winner)).any():
        fail("a winner who is also the discarder")
    if lay.patterns and drawn.any():
        pats = df.loc[drawn, lay.pattern_columns].to_numpy()
        if pats.any():
            fail("pattern flags set on a drawn deal")
    d = deltas(df, lay)
    tot = d.sum(axis=1)
    if np.issubdtype(tot.dtype, np.integer):
        bad_sum = tot != 0
    else:
        bad_sum = np.abs(tot) > 1e-6 * np.maximum(1.0, np.abs(d).max(axis=1))
    if bad_sum.any():
        i = int(np.argmax(bad_sum))
        fail(f"deltas of deal {_ident(df, i)} sum to {tot[i]}, not 0")
    dup = df.duplicated(list(IDENTITY))
    if dup.any():
        i = int(np.argmax(dup.to_numpy()))
        fail(f"deal {_ident(df, i)} appears twice")
    return lay


def _ident(df: pd.DataFrame, i: int) -> str:
    row = df.iloc[i]
    return f"(run_seed={row['run_seed']}, match={row['match']}, deal={row['deal']})"
