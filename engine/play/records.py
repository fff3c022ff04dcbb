"""The per-deal record schema: kernel rows -> pandas DataFrame -> Parquet.

One row per deal, columns as DESIGN.md "Per-deal record": ``run_seed, match, deal,
variant, rules_id, dealer, dealer_streak, winner, win_type, discarder, turns,
wilds_in_hand, pat_<name>..., value, delta_0..delta_{P-1}`` and the variant's extras.
The Parquet file's key-value metadata (key ``mjlab``) holds the run's identity: variant,
version, full rule options, rules_id, seed, policies, match length, package version.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import numpy as np
import pandas as pd

from engine import abi
from engine.fileio import META_KEY

__all__ = [
    "to_frame",
    "to_rows",
    "settled_columns",
    "settle_mismatch",
    "write_parquet",
    "read_metadata",
    "META_KEY",
    "FIXED_COLUMNS",
]


FIXED_COLUMNS = (
    "run_seed",
    "match",
    "deal",
    "variant",
    "rules_id",
    "dealer",
    "dealer_streak",
    "winner",
    "win_type",
    "discarder",
    "turns",
    "wilds_in_hand",
    "value",
)


def to_frame(
    rec: np.ndarray,
    match: np.ndarray,
    deal: np.ndarray,
    *,
    seed: int,
    variant,
    rules_id: str,
    players: int,
) -> pd.DataFrame:
    """Build the record frame from kernel rows ``rec (n, N_COLS) int32``."""
    n = rec.shape[0]
    win_types = pd.Categorical.from_codes(
        rec[:, abi.C_WIN_TYPE].astype(np.int8), categories=list(abi.WIN_TYPE_NAMES)
    )
    cols: dict[str, object] = {
        "run_seed": np.full(n, seed, np.int64),
        "match": match.astype(np.int32),
        "deal": deal.astype(np.int16),
        "variant": pd.Categorical([variant.name] * n) if n else pd.Categorical([]),
        "rules_id": pd.Categorical([rules_id] * n) if n else pd.Categorical([]),
        "dealer": rec[:, abi.C_DEALER].astype(np.int8),
        "dealer_streak": rec[:, abi.C_STREAK].astype(np.int16),
        "winner": rec[:, abi.C_WINNER].astype(np.int8),
        "win_type": win_types,
        "discarder": rec[:, abi.C_DISCARDER].astype(np.int8),
        "turns": rec[:, abi.C_TURNS].astype(np.int16),
        "wilds_in_hand": rec[:, abi.C_WILDS].astype(np.int8),
    }
    bits = (rec[:, abi.C_PAT_LO].astype(np.int64) & 0x7FFFFFFF) | (
        (rec[:, abi.C_PAT_HI].astype(np.int64) & 0x7FFFFFFF) << 31
    )
    for i, name in enumerate(variant.pattern_columns()):
        cols[name] = ((bits >> i) & 1).astype(bool)
    cols["value"] = rec[:, abi.C_VALUE].astype(np.int32)
    for s in range(players):
        cols[f"delta_{s}"] = rec[:, abi.C_DELTA + s].astype(np.int32)
    for i, name in enumerate(variant.extra_columns):
        cols[name] = rec[:, abi.C_EXTRA + i].astype(np.int32)
    return pd.DataFrame(cols)


ROW_COLUMNS = {
    "dealer": abi.C_DEALER,
    "dealer_streak": abi.C_STREAK,
    "winner": abi.C_WINNER,
    "discarder": abi.C_DISCARDER,
    "turns": abi.C_TURNS,
    "wilds_in_hand": abi.C_WILDS,
    "value": abi.C_VALUE,
}
"""The fixed record columns that are one kernel row column each (``win_type`` is coded)."""


def without_attrs(frame: pd.DataFrame) -> pd.DataFrame:
    """A shallow copy of ``frame`` with no attrs, to read many columns from: pandas
    deep-copies a frame's attrs into every column taken from it.
    """
    plain = frame.copy(deep=False)
    plain.attrs = {}
    return plain


def name_codes(values: pd.Series, names) -> np.ndarray:
    """Each value's index in ``names`` (int64; -1 for a value not among them, or
    missing), worked out once per distinct value (a categorical column's categories), not
    row by row.
    """
    codes, uniques = pd.factorize(values, use_na_sentinel=True)
    index = {name: i for i, name in enumerate(names)}
    lut = np.array([index.get(str(u), -1) for u in uniques] + [-1], np.int64)
    return lut[codes]  # a missing value's code -1 picks the final -1


def to_rows(variant, frame: pd.DataFrame) -> np.ndarray:
    """Kernel rows (int64 (n, N_COLS)) of a record frame: the inverse of :func:`to_frame`
    for the columns a deal's settlement reads (the run's identity columns are not rows').

    UsageError naming the first column the frame lacks (records of an older version).
    """
    from engine.errors import UsageError

    players = sum(1 for c in frame.columns if c.startswith("delta_"))
    need = [*ROW_COLUMNS, "win_type", *variant.pattern_columns()]
    need += [f"delta_{s}" for s in range(players)] + list(variant.extra_columns)
    missing = [c for c in need if c not in frame.columns]
    if missing:
        raise UsageError(
            f"{variant.name}: these records lack the column {missing[0]!r}; simulate them "
            "again with this version"
        )
    frame = without_attrs(frame)  # a re-scored table takes ~40 columns a frame, a change
    rec = np.zeros((len(frame), abi.N_COLS), np.int64)
    for name, c in ROW_COLUMNS.items():
        rec[:, c] = frame[name].to_numpy()
    wt = name_codes(frame["win_type"], abi.WIN_TYPE_NAMES)
    bad = np.flatnonzero(wt < 0)
    if len(bad):
        raise UsageError(f"{variant.name}: unknown win_type {frame['win_type'].iloc[bad[0]]!r}")
    rec[:, abi.C_WIN_TYPE] = wt
    bits = np.zeros(len(frame), np.int64)
    for i, name in enumerate(variant.pattern_columns()):
        bits |= frame[name].to_numpy().astype(np.int64) << i
    rec[:, abi.C_PAT_LO] = bits & 0x7FFFFFFF
    rec[:, abi.C_PAT_HI] = (bits >> 31) & 0x7FFFFFFF
    for s in range(players):
        rec[:, abi.C_DELTA + s] = frame[f"delta_{s}"].to_numpy()
    for i, name in enumerate(variant.extra_columns):
        rec[:, abi.C_EXTRA + i] = frame[name].to_numpy()
    return rec


def check_replay_args(seed: int, match: int, deal: int, match_length: int) -> None:
    """UsageError unless ``seed``/``match`` >= 0 and ``deal`` lies in the match."""
    from engine.abi import MAX_MATCH_LENGTH, MAX_MATCHES, MAX_SEED
    from engine.errors import UsageError

    if seed < 0 or match < 0:
        raise UsageError("--seed and --match must be >= 0")
    if seed > MAX_SEED:
        raise UsageError(f"--seed must be 0..{MAX_SEED}, got {seed}")
    if match >= MAX_MATCHES:
        raise UsageError(f"--match must be 0..{MAX_MATCHES - 1}, got {match}")
    if not 1 <= match_length <= MAX_MATCH_LENGTH:
        raise UsageError(f"--match-length must be 1..{MAX_MATCH_LENGTH}, got {match_length}")
    if not 0 <= deal < match_length:
        raise UsageError(f"--deal must be 0..{match_length - 1} (the match length)")


def replayed_deal(variant, resolved, rec, log, final, *, seed: int, match: int, deal: int):
    """``(events, record_row, final, resolved)`` of the last deal a replay kernel played.

    ``rec``/``final`` hold the match's deals 0..``deal``; ``log`` the kernel's event rows
    (unused rows are all zero). Shared by the mahjong and 字牌 replays.
    """
    used = int(np.flatnonzero(log[:, 0])[-1]) + 1 if log[:, 0].any() else 0
    frame = to_frame(
        rec[deal:],
        np.array([match]),
        np.array([deal]),
        seed=seed,
        variant=variant,
        rules_id=variant.rules_id(resolved),
        players=variant.n_players(resolved),
    )
    return log[:used], frame.iloc[0], final[deal], resolved


def write_parquet(df: pd.DataFrame, path, meta: dict) -> None:
    """Write ``df`` to ``path`` atomically with its identity and checksums (engine.fileio)."""
    import pyarrow as pa

    from engine import fileio

    fileio.write_parquet(Path(path), pa.Table.from_pandas(df, preserve_index=False), meta)


def read_metadata(path) -> dict | None:
    """The mjlab metadata of a Parquet file, or None if it has none."""
    from engine import fileio
    from engine.errors import UsageError

    try:
        return fileio.read_meta(path).meta
    except UsageError:
        return None


# ---- conformance helpers both families' checks share ----------------------------------------
class ConformanceError(AssertionError):
    """A deal broke a conservation rule."""


def settled_columns(variant, resolved: Mapping, frame: pd.DataFrame, rescore) -> dict:
    """The columns a deal's settlement writes (value, deltas, patterns, extras), of every
    record of ``frame`` paid again under the resolved options by the variant's own
    settlement kernel: ``rescore(variant, packed, rec)``, its family's (which pays kernel
    rows again in place). UsageError if the records lack a column it reads.
    """
    rec = to_rows(variant, frame)
    rescore(variant, variant.pack(resolved), rec)
    players = sum(1 for c in frame.columns if c.startswith("delta_"))
    out = {"value": rec[:, abi.C_VALUE]}
    bits = (rec[:, abi.C_PAT_LO] & 0x7FFFFFFF) | ((rec[:, abi.C_PAT_HI] & 0x7FFFFFFF) << 31)
    for i, name in enumerate(variant.pattern_columns()):
        out[name] = ((bits >> i) & 1).astype(bool)
    for s in range(players):
        out[f"delta_{s}"] = rec[:, abi.C_DELTA + s]
    for i, name in enumerate(variant.extra_columns):
        out[name] = rec[:, abi.C_EXTRA + i]
    return out


def first_mismatch(frame: pd.DataFrame, got: Mapping, source: str):
    """The first deal of ``frame`` whose column disagrees with ``got`` (column -> values
    from ``source``), as ``(i, message)``, or None.
    """
    first = None
    for col, want in got.items():
        want = np.asarray(want, np.int64)
        rec = frame[col].to_numpy().astype(np.int64)
        bad = np.flatnonzero(want != rec)
        if len(bad) and (first is None or bad[0] < first[0]):
            i = int(bad[0])
            msg = f"{col} {int(rec[i])} but {source} {int(want[i])} ({len(bad)} deals disagree)"
            first = (i, msg)
    return first


def settle_mismatch(variant, resolved: Mapping, frame: pd.DataFrame, rescore):
    """The first deal whose record disagrees with its own settlement paid again from the
    record row (``rescore``: the family's, see :func:`settled_columns`), or None.

    Returns ``(i, message)``: the row and which column holds what against what the
    settlement gives. A deal that fails carries not every input of its payment (so a
    re-score could not pay it again), or was paid otherwise in play.
    """
    got = settled_columns(variant, resolved, frame, rescore)
    return first_mismatch(frame, got, "its settlement from the record gives")


def conformance_failure(i: int, frame: pd.DataFrame, what: str):
    row = frame.iloc[i]
    raise ConformanceError(f"deal {i} (match {row['match']}, deal {row['deal']}): {what}")
