"""Conformance checks of the mahjong family (STYLE §5): every deal, every tile, zero-sum.

:func:`check_mahjong_variant` plays matches of a mahjong variant with every policy and
checks DESIGN's conservation rules on every deal (``engine.runs.testing.check_variant``
reaches it through the variant's family): every tile accounted for, no fifth copy
anywhere, deltas summing to 0, winner / win_type / discarder consistent, ``pat_*`` set
only with a winner, the value paid and the payments paid again from the record row by
the variant's settlement (:func:`engine.play.records.settle_mismatch`), and (given a
``complete`` function, e.g.
the brute-force twin of the tests) the winning hand really complete.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from functools import partial

import numpy as np

from engine.hand._tables import kernel_tables
from engine.mahjong import layout as L
from engine.mahjong import params as _params
from engine.play import drivers as _drivers
from engine.play.mahjong.loop import FINAL_ZONES, observe_matches, play_match
from engine.play.mahjong.rescore import rescore_rows
from engine.play.records import conformance_failure

__all__ = ["DRIVER", "play_with_state", "check_mahjong_variant"]


def _seat(v, resolved, policies, overrides=None):
    from engine.play.bots import resolve_policies, seat_bots

    return seat_bots(v, resolved, resolve_policies(v, policies), overrides)


def _play(packed, pols, bots, seed, match, n, rec, final, log, log_deal):
    no_obs = np.zeros((1, 1), np.int64)
    play_match(packed, pols, bots, seed, match, n, kernel_tables(), rec, final, log, log_deal,
               no_obs)  # fmt: skip
    return 0


def _observe(packed, pols, bots, seed, match_lo, n_matches, match_length, rec, obs):
    observe_matches(packed, pols, bots, seed, match_lo, n_matches, match_length, kernel_tables(),
                    rec, obs)  # fmt: skip


DRIVER = _drivers.LoopDriver(
    "mahjong", lambda v: v.bot_layout is _params, _seat, (FINAL_ZONES, L.N_PHYS), L.MAX_EVENTS,
    L.EVENT_COLS, _play, _observe,
)  # fmt: skip
"""The mahjong loop as the shared drivers (engine.play.drivers) call it: it plays the variants
with hook kernels (the loop reaches their scoring through them)."""


play_with_state = partial(_drivers.play_with_state, DRIVER)
"""``play_with_state(variant, matches, seed=0, rules=None, policies="value",
match_length=8) -> (frame, final, errors)``: whole matches with every deal's final state
(engine.play.drivers.play_with_state)."""


def check_mahjong_variant(
    v, resolved: Mapping, matches: int, seed: int, policies, complete: Callable | None
) -> int:
    """Check every deal of ``matches`` matches per policy of the mahjong variant ``v`` under
    the resolved rules ``resolved``; returns the deals checked
    (:func:`engine.runs.testing.check_variant`, which gives the defaults).

    Parameters
    ----------
    complete : callable or None
        ``complete(counts34, wilds, sets) -> bool``, an independent completeness check of
        the winning hand (the brute-force twin in the tests).
    """
    tileset = int(v.pack(resolved)[L.R_TILESET])
    expected = np.zeros(L.N_PHYS, np.int64)
    expected[:34] = 4
    if tileset == 144:
        expected[34:42] = 1
    players = v.n_players(resolved)
    pattern_columns = v.pattern_columns()

    def check(frame, final):
        deltas = frame[[f"delta_{s}" for s in range(players)]].to_numpy()
        pats = frame[pattern_columns].to_numpy()
        for i in range(len(frame)):
            zones = final[i, :11].astype(np.int64)
            if not np.array_equal(zones.sum(axis=0), expected):
                bad = np.flatnonzero(zones.sum(axis=0) != expected)
                conformance_failure(
                    i,
                    frame,
                    f"tiles not accounted for: kinds {bad.tolist()} "
                    f"{zones.sum(axis=0)[bad].tolist()} vs {expected[bad].tolist()}",
                )
            if (zones > 4).any():
                conformance_failure(i, frame, "a zone holds a fifth copy")
            if deltas[i].sum() != 0:
                conformance_failure(i, frame, f"deltas {deltas[i].tolist()} do not sum to 0")
            winner = int(frame["winner"].iat[i])
            wt = str(frame["win_type"].iat[i])
            disc = int(frame["discarder"].iat[i])
            if (winner < 0) != (wt == "none"):
                conformance_failure(i, frame, f"winner {winner} with win_type {wt}")
            if (disc >= 0) != (wt in ("discard", "rob_kong")):
                conformance_failure(i, frame, f"discarder {disc} with win_type {wt}")
            if disc >= 0 and disc == winner:
                conformance_failure(i, frame, "the winner fed his own win")
            if winner < 0 and pats[i].any():
                conformance_failure(i, frame, "patterns set without a winner")
            if winner >= 0 and wt != "instant" and complete is not None:
                hand = final[i, 11]
                counts = hand[:34].astype(np.int64)
                if not complete(counts, int(hand[34]), int(hand[35])):
                    conformance_failure(
                        i,
                        frame,
                        f"winning hand not complete: {counts.tolist()} "
                        f"wilds {int(hand[34])} sets {int(hand[35])}",
                    )

    def play(pol):
        return play_with_state(v.name, matches, seed, resolved, pol)[:2]

    return _drivers.check_policies(
        v, resolved, policies, play, check, conformance_failure, rescore_rows
    )
