"""Conformance checks of the 字牌 family (STYLE §5): every deal, every card, zero-sum.

:func:`check_zipai_variant` plays matches of a 字牌 variant with every policy and checks
each deal (``engine.runs.testing.check_variant`` reaches it through the variant's family):

- every card accounted for: each kind four times and the 王 ``kings`` times across the
  seats' hands and tables, the dead cards, the stock and the winning card; no zone with
  a fifth copy; the 坐醒 seat holds nothing;
- payments sum to zero; 黄庄 deltas are exactly the ``wang_money_*`` columns;
- ``winner`` / ``win_type`` / ``discarder`` consistent: ``win_type`` is ``self_draw``,
  ``discard``, ``instant`` or ``none``; ``discarder`` is set exactly for ``discard`` and
  is never the winner; a win on another player's flipped card is a ``discard`` with the
  flipper as ``discarder`` and ``win_on_flip`` 1; ``instant`` (天胡) is the dealer's; a
  winner holding 王 won by self-draw (or 天胡);
- ``pat_*`` only with a winner, 天胡 exactly for ``instant``, 地胡 only on the dealer's
  discard; the score path: ``huxi >= 6``, ``tun = huxi + 3 × xing``, ``value = tun ×
  fan``;
- the winning hand re-checked by an independent evaluation (``complete``, e.g. the
  brute-force twin ``tests/oracles/zipai_bruteforce.evaluate``): it wins, with at least
  the recorded 胡息.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from functools import partial

import numpy as np
import pandas as pd

from engine import abi
from engine.errors import UsageError
from engine.play import drivers as _drivers
from engine.play.zipai.loop import observe_matches, play_match
from engine.play.zipai.rescore import rescore_rows
from engine.zipai import layout as Z
from engine.zipai import params as _params

__all__ = ["play_with_state", "check_zipai_variant", "ZipaiConformanceError"]


class ZipaiConformanceError(AssertionError):
    """违规 a deal broke a conservation or consistency rule."""


def _policy_codes(variant, resolved, policies) -> np.ndarray:
    seats = variant.n_players(resolved)
    if isinstance(policies, str):
        names = [p.strip() for p in policies.split(",")]
    else:
        names = list(policies)
    if len(names) == 1:
        names = names * seats
    return np.array([abi.POLICY_NAMES.index(p) for p in names], np.int64)


def _seat_bots(variant, resolved, policies, overrides=None) -> tuple[np.ndarray, np.ndarray]:
    """``(policy codes, parameter rows)`` of the seats (:func:`engine.play.bots.seat_bots`; the
    rows follow the codes, which the kernel uses cyclically).
    """
    from engine.play.bots import seat_bots

    codes = _policy_codes(variant, resolved, policies)
    _, rows = seat_bots(variant, resolved, [abi.POLICY_NAMES[c] for c in codes], overrides)
    return codes, rows


def _seat(v, resolved, policies, overrides=None):
    try:
        return _seat_bots(v, resolved, policies, overrides)
    except ValueError:
        raise UsageError(f"unknown policy in {policies!r}; policies: {v.policies}") from None


def _play(packed, pols, bots, seed, match, n, rec, final, log, log_deal):
    no_deck = np.zeros(0, np.int64)
    no_obs = np.zeros((1, 1), np.int64)
    return play_match(packed, pols, seed, match, n, rec, final, log, log_deal, no_deck, -1, bots,
                      no_obs)  # fmt: skip


def _observe(packed, pols, bots, seed, match_lo, n_matches, match_length, rec, obs):
    observe_matches(packed, pols, bots, seed, match_lo, n_matches, match_length, rec, obs)


DRIVER = _drivers.LoopDriver(
    "字牌", lambda v: v.bot_layout is _params, _seat, (Z.N_ZONES, 21), Z.MAX_EVENTS,
    Z.EVENT_COLS, _play, _observe,
)  # fmt: skip
"""The 字牌 loop as the shared drivers (engine.play.drivers) call it: it plays the variants
with the 字牌 bot layout."""


play_with_state = partial(_drivers.play_with_state, DRIVER)
"""``play_with_state(variant, matches, seed=0, rules=None, policies="value",
match_length=8) -> (frame, final, errors)``: whole matches with every deal's final state
(engine.play.drivers.play_with_state)."""


def _fail(i: int, frame: pd.DataFrame, what: str):
    row = frame.iloc[i]
    raise ZipaiConformanceError(f"deal {i} (match {row['match']}, deal {row['deal']}): {what}")


def _default_complete(counts, kings, *, table, candidate, self_drawn):
    from engine.zipai.hand import evaluate

    e = evaluate(counts, kings, table=table, candidate=candidate, self_drawn=self_drawn)
    return e


def check_deal(i, frame, final, variant, resolved, complete) -> None:
    """检查 check deal ``i`` of ``frame`` (see the module docstring); raise on a violation."""
    seats = variant.n_players(resolved)
    kings = resolved["kings"]
    row = frame.iloc[i]
    zones = final[i].astype(np.int64)
    held = zones[: Z.FZ_FLIGHT + 1].sum(axis=0)
    want = np.full(21, 4)
    want[20] = kings
    if not np.array_equal(held, want):
        bad = np.flatnonzero(held != want)
        _fail(i, frame, f"cards not accounted for: kinds {bad.tolist()} {held[bad].tolist()}")
    if (zones[: Z.FZ_FLIGHT + 1, :20] > 4).any():
        _fail(i, frame, "a zone holds a fifth copy")
    deltas = np.array([int(row[f"delta_{s}"]) for s in range(seats)])
    if deltas.sum() != 0:
        _fail(i, frame, f"deltas {deltas.tolist()} do not sum to 0")
    winner = int(row["winner"])
    wt = str(row["win_type"])
    disc = int(row["discarder"])
    dealer = int(row["dealer"])
    zx = int(row["zuoxing"])
    pats = {p.name: bool(row[f"pat_{p.name}"]) for p in variant.patterns}
    if wt not in ("self_draw", "discard", "instant", "none"):
        _fail(i, frame, f"win_type {wt} is not a 字牌 win type")
    if (winner < 0) != (wt == "none"):
        _fail(i, frame, f"winner {winner} with win_type {wt}")
    if (disc >= 0) != (wt == "discard"):
        _fail(i, frame, f"discarder {disc} with win_type {wt}")
    if disc >= 0 and disc == winner:
        _fail(i, frame, "the winner fed his own win")
    if int(row["win_on_flip"]) and wt != "discard":
        _fail(i, frame, "a win on a flipped card must be recorded as discard")
    if (wt == "instant") != pats["tianhu"] or (wt == "instant" and winner != dealer):
        _fail(i, frame, "天胡 must be the dealer's instant win")
    if pats["dihu"] and not (wt == "discard" and disc == dealer and not row["win_on_flip"]):
        _fail(i, frame, "地胡 must be a win on the dealer's discard")
    if zx >= 0:
        if zones[Z.FZ_HAND + zx].any() or zones[Z.FZ_TABLE + zx].any():
            _fail(i, frame, "the 坐醒 seat holds cards")
        if winner == zx or disc == zx or deltas[zx] != int(row["zuoxing_money"]):
            _fail(i, frame, "the 坐醒 seat played or paid")
    if winner < 0:
        if any(pats.values()) or int(row["value"]) != 0:
            _fail(i, frame, "patterns or value set without a winner")
        money = np.array([int(row[f"wang_money_{s}"]) for s in range(seats)])
        if not np.array_equal(money, deltas):
            _fail(i, frame, f"黄庄 deltas {deltas.tolist()} are not the 王 money {money}")
        if int(row["stock_left"]) != 0:
            _fail(i, frame, "黄庄 with cards left in the stock")
        return
    huxi, xing, tun, fan = (int(row[c]) for c in ("huxi", "xing", "tun", "fan"))
    if huxi < 6 or tun != huxi + 3 * xing or int(row["value"]) != tun * fan:
        _fail(i, frame, f"score path huxi {huxi} xing {xing} tun {tun} fan {fan}")
    if int(row["wilds_in_hand"]) > 0 and wt not in ("self_draw", "instant"):
        _fail(i, frame, "a 王 holder won on another player's card")
    if deltas[winner] <= 0:
        _fail(i, frame, "the winner did not gain")
    info = zones[Z.FZ_INFO]
    hand = zones[Z.FZ_WIN_HAND]
    cand = int(info[Z.I_CAND])
    shape = int(info[Z.I_SHAPE])
    table = (int(info[Z.I_TGROUPS]), int(info[Z.I_THUXI]), int(info[Z.I_TRED]))
    e = complete(
        hand[:20].astype(np.uint8),
        int(hand[20]),
        table=table,
        candidate=None if cand < 0 else cand,
        self_drawn=bool(info[Z.I_SELF]),
    )
    ehuxi = int(e.huxi)
    if not bool(e.wins) or ehuxi < huxi or (shape == 0 and int(info[Z.I_HUXI]) != huxi):
        _fail(
            i,
            frame,
            f"winning hand not confirmed: hand {hand.tolist()} table {table} cand {cand} "
            f"-> twin 胡息 {ehuxi} wins {bool(e.wins)} vs recorded {huxi}",
        )


def check_zipai_variant(
    v, resolved: Mapping, matches: int, seed: int, policies, complete: Callable | None
) -> int:
    """一致性检查 conformance: check every deal of ``matches`` matches per policy of the 字牌
    variant ``v`` under the resolved rules ``resolved``; returns the deals checked
    (:func:`engine.runs.testing.check_variant`, which gives the defaults).

    Parameters
    ----------
    policies : str or sequence of str, or None
        Policies to run one after the other (each for every seat); None: all.
    complete : callable or None
        ``complete(counts, kings, *, table, candidate, self_drawn)`` returning an object
        with ``huxi`` and ``wins`` (the brute-force twin in the tests); None: the
        engine's own :func:`engine.zipai.hand.evaluate`.
    """
    complete = complete or _default_complete

    def play(pol):
        frame, final, errors = play_with_state(v.name, matches, seed, resolved, pol)
        if errors:
            msg = f"{v.name} with {pol}: the kernel reported {errors} errors"
            raise ZipaiConformanceError(msg)
        return frame, final

    def check(frame, final):
        for i in range(len(frame)):
            check_deal(i, frame, final, v, resolved, complete)

    return _drivers.check_policies(v, resolved, policies, play, check, _fail, rescore_rows)
