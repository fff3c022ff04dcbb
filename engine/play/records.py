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

__all__ = ["to_frame", "write_parquet", "read_metadata", "META_KEY", "FIXED_COLUMNS"]


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


def recompute_mismatch(variant, resolved: Mapping, frame: pd.DataFrame):
    """The first deal whose record disagrees with ``variant.recompute``, or None.

    Returns ``(i, message)``: the row and which column holds what against what the flags
    and the other columns give. A variant without ``recompute`` is an error: every
    registered variant states how its value follows from its record.
    """
    if variant.recompute is None:
        raise ConformanceError(
            f"{variant.name}: no Variant.recompute, so its values cannot be checked"
        )
    got = variant.recompute(resolved, frame)
    first = None
    for col, want in got.items():
        want = np.asarray(want, np.int64)
        rec = frame[col].to_numpy().astype(np.int64)
        bad = np.flatnonzero(want != rec)
        if len(bad) and (first is None or bad[0] < first[0]):
            i = int(bad[0])
            msg = (
                f"{col} {int(rec[i])} but the flags and record give {int(want[i])} "
                f"({len(bad)} deals disagree)"
            )
            first = (i, msg)
    return first


def conformance_failure(i: int, frame: pd.DataFrame, what: str):
    row = frame.iloc[i]
    raise ConformanceError(f"deal {i} (match {row['match']}, deal {row['deal']}): {what}")
