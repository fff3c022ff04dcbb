"""Conformance checks over the variant registry (STYLE §5), usable from tests.

:func:`check_variant` plays deals of a variant with every policy and checks DESIGN's
conservation rules on every deal: every tile accounted for, no fifth copy anywhere,
deltas summing to 0, winner / win_type / discarder consistent, ``pat_*`` set only with a
winner, the value paid and the payments recomputed from the pattern flags and the other
record columns (``Variant.recompute``: :func:`recompute_mismatch`), and (given a
``complete`` function, e.g. the brute-force twin of the tests) the winning hand really
complete.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

import numpy as np
import pandas as pd

from . import abi
from .bots import seat_bots
from .game import _layout as L
from .hand._tables import kernel_tables
from .run import resolve_policies
from .variants import get as get_variant

__all__ = ["play_with_state", "check_variant", "recompute_mismatch", "ConformanceError"]


class ConformanceError(AssertionError):
    """A deal broke a conservation rule."""


def play_with_state(
    variant: str,
    matches: int,
    seed: int = 0,
    rules: Mapping | None = None,
    policies="value",
    match_length: int = 8,
):
    """Play ``matches`` whole matches and return ``(frame, final)``.

    ``final`` is int16 ``(deals, FINAL_ZONES, N_PHYS)``: where every physical tile ended
    (see engine.game._loop.FINAL_ZONES) and the winner's evaluated hand.
    """
    from .game._loop import FINAL_ZONES, play_match
    from .records import to_frame

    v = get_variant(variant)
    resolved = v.resolve(rules)
    packed = v.pack(resolved)
    pols, bots = seat_bots(v, resolved, resolve_policies(v, policies))
    tab = kernel_tables()
    n = matches * match_length
    rec = np.zeros((n, abi.N_COLS), np.int32)
    final = np.zeros((n, FINAL_ZONES, L.N_PHYS), np.int16)
    log = np.zeros((1, L.EVENT_COLS), np.int32)
    for m in range(matches):
        lo = m * match_length
        play_match(
            packed,
            pols,
            bots,
            seed,
            m,
            match_length,
            tab,
            rec[lo : lo + match_length],
            final[lo : lo + match_length],
            log,
            -1,
            np.zeros((1, 1), np.int64),
        )
    idx = np.arange(n)
    frame = to_frame(
        rec,
        idx // match_length,
        idx % match_length,
        seed=seed,
        variant=v,
        rules_id=v.rules_id(resolved),
        players=v.n_players(resolved),
    )
    return frame, final


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


def _fail(i: int, frame: pd.DataFrame, what: str):
    row = frame.iloc[i]
    raise ConformanceError(f"deal {i} (match {row['match']}, deal {row['deal']}): {what}")


def check_variant(
    variant: str,
    matches: int = 50,
    seed: int = 0,
    rules: Mapping | None = None,
    policies=None,
    complete: Callable | None = None,
) -> int:
    """Check every deal of ``matches`` matches per policy; returns the deals checked.

    Parameters
    ----------
    complete : callable, optional
        ``complete(counts34, wilds, sets) -> bool``, an independent completeness check of
        the winning hand (the brute-force twin in the tests).
    """
    v = get_variant(variant)
    if v.family == "zipai":
        from .zipai.testing import check_zipai_variant

        return check_zipai_variant(variant, matches, seed, rules, policies, complete)
    resolved = v.resolve(rules)
    tileset = int(v.pack(resolved)[L.R_TILESET])
    expected = np.zeros(L.N_PHYS, np.int64)
    expected[:34] = 4
    if tileset == 144:
        expected[34:42] = 1
    players = v.n_players(resolved)
    checked = 0
    for pol in policies or v.policies:
        frame, final = play_with_state(variant, matches, seed, rules, pol)
        deltas = frame[[f"delta_{s}" for s in range(players)]].to_numpy()
        pats = frame[v.pattern_columns()].to_numpy()
        for i in range(len(frame)):
            zones = final[i, :11].astype(np.int64)
            if not np.array_equal(zones.sum(axis=0), expected):
                bad = np.flatnonzero(zones.sum(axis=0) != expected)
                _fail(
                    i,
                    frame,
                    f"tiles not accounted for: kinds {bad.tolist()} "
                    f"{zones.sum(axis=0)[bad].tolist()} vs {expected[bad].tolist()}",
                )
            if (zones > 4).any():
                _fail(i, frame, "a zone holds a fifth copy")
            if deltas[i].sum() != 0:
                _fail(i, frame, f"deltas {deltas[i].tolist()} do not sum to 0")
            winner = int(frame["winner"].iat[i])
            wt = str(frame["win_type"].iat[i])
            disc = int(frame["discarder"].iat[i])
            if (winner < 0) != (wt == "none"):
                _fail(i, frame, f"winner {winner} with win_type {wt}")
            if (disc >= 0) != (wt in ("discard", "rob_kong")):
                _fail(i, frame, f"discarder {disc} with win_type {wt}")
            if disc >= 0 and disc == winner:
                _fail(i, frame, "the winner fed his own win")
            if winner < 0 and pats[i].any():
                _fail(i, frame, "patterns set without a winner")
            if winner >= 0 and wt != "instant" and complete is not None:
                hand = final[i, 11]
                counts = hand[:34].astype(np.int64)
                if not complete(counts, int(hand[34]), int(hand[35])):
                    _fail(
                        i,
                        frame,
                        f"winning hand not complete: {counts.tolist()} "
                        f"wilds {int(hand[34])} sets {int(hand[35])}",
                    )
            checked += 1
        bad = recompute_mismatch(v, resolved, frame)
        if bad is not None:
            _fail(bad[0], frame, bad[1])
    return checked
