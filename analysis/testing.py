"""Synthetic record frames with known structure, for tests, benchmarks and examples.

:func:`synthetic_records` plays a toy mahjong-like game with the DESIGN record schema:
dealer rotation and streaks across the deals of a match, a winner drawn from seat
weights, win types, patterns, values and zero-sum payments. Its random numbers are
drawn before any parameter is applied, so two calls with the same ``seed`` and
different parameters are *common random numbers*: the same "walls" under other rules,
like the engine's per-deal streams. Nothing here is a model of a real variant.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from analysis.schema import WIN_TYPES

__all__ = ["synthetic_records", "DEFAULT_PATTERNS"]

DEFAULT_PATTERNS: dict[str, tuple[float, int]] = {
    "pinghu": (0.40, 0),
    "duiduihu": (0.10, 2),
    "qingyise": (0.05, 4),
    "qidui": (0.04, 3),
    "tianhu": (0.002, 20),
}
"""Toy patterns: name -> (probability per win, value added)."""

# win type probabilities among wins (self_draw first; discard takes the remainder)
_TYPE_P = {"self_draw": 0.35, "rob_kong": 0.01, "kong_draw": 0.03, "instant": 0.01}


def synthetic_records(
    matches: int,
    *,
    seed: int = 0,
    players: int = 4,
    match_length: int = 16,
    variant: str = "synthetic",
    rules_id: str = "synth0",
    draw_rate: float = 0.2,
    seat_weights: Sequence[float] | None = None,
    dealer_weight: float = 1.0,
    dealer_keeps_on_draw: bool = False,
    dealer_multiplier: int = 2,
    first_dealer: str = "seat0",
    patterns: Mapping[str, tuple[float, int]] | None = None,
    value_mean: float = 2.0,
    value_bonus: int = 0,
    strong_seat: int | None = None,
    skill: float = 0.0,
    extras: bool = True,
) -> pd.DataFrame:
    """Generate a synthetic record frame of ``matches × match_length`` deals.

    Parameters
    ----------
    matches : int
        Number of matches.
    seed : int
        Seed of every random number (the same seed gives the same walls).
    players : int
        Seats (2..4).
    match_length : int
        Deals per match.
    variant, rules_id : str
        Identity written to every row.
    draw_rate : float
        Probability that a deal is drawn.
    seat_weights : sequence of float, optional
        Relative win weight of each seat (default equal): a planted seat advantage.
    dealer_weight : float
        Win-weight multiplier of the dealer (>1 plants a dealer edge).
    dealer_keeps_on_draw : bool
        Whether a drawn deal keeps the dealer (else the deal passes on).
    dealer_multiplier : int
        Payments to or from the dealer are multiplied by this (2 gives the dealer an
        edge on fed wins; 1 makes every seat and role exactly symmetric).
    first_dealer : {"seat0", "rotate"}
        Dealer of each match's first deal: seat 0 (as the engine), or ``match % P``
        (every seat deals first equally often, so seats are symmetric even with a
        dealer edge).
    patterns : mapping, optional
        ``name -> (probability per win, value added)``; default :data:`DEFAULT_PATTERNS`.
    value_mean : float
        Mean of the geometric-like base value of a win (before pattern bonuses).
    value_bonus : int
        Added to every win's value (an option a sweep can vary).
    strong_seat : int, optional
        The seat that holds a "strong policy": its win weight is multiplied by
        ``1 + skill``. Written to a ``strong_seat`` column when given.
    skill : float
        Relative win-weight gain of the strong seat.
    extras : bool
        Add a ``kongs`` extra column.

    Returns
    -------
    DataFrame
        One row per deal in the DESIGN schema (compact integer dtypes, ``win_type`` as a
        categorical over :data:`analysis.schema.WIN_TYPES`).

    Examples
    --------
    >>> df = synthetic_records(2, seed=1)
    >>> len(df), int(df.filter(like="delta_").sum(axis=1).abs().max())
    (32, 0)
    """
    pats = dict(DEFAULT_PATTERNS if patterns is None else patterns)
    game = _ToyGame(
        players=players,
        weights=_seat_weights(players, seat_weights, strong_seat, skill),
        draw_rate=draw_rate,
        dealer_weight=dealer_weight,
        dealer_keeps_on_draw=dealer_keeps_on_draw,
        dealer_multiplier=dealer_multiplier,
        names=sorted(pats),
        probs=np.array([pats[n][0] for n in sorted(pats)]),
        bonus=np.array([pats[n][1] for n in sorted(pats)], dtype=np.int64),
        value_mean=value_mean,
        value_bonus=value_bonus,
    )
    draws = _Uniforms.draw(seed, matches, match_length, len(game.names))
    if first_dealer not in ("seat0", "rotate"):
        raise ValueError("first_dealer must be 'seat0' or 'rotate'")
    table = _play_matches(game, draws, first_dealer)
    cols = _columns(game, draws, table, seed=seed, variant=variant, rules_id=rules_id)
    if extras:
        won = table.winner >= 0
        cols["kongs"] = np.where(won, (draws.kong * 3).astype(np.int64), 0).astype(np.int8).ravel()
    if strong_seat is not None:
        cols["strong_seat"] = np.full(matches * match_length, strong_seat, dtype=np.int8)
    return pd.DataFrame(cols)


def _seat_weights(players, seat_weights, strong_seat, skill) -> np.ndarray:
    """Each seat's relative win weight, the strong seat's multiplied by ``1 + skill``."""
    w = np.ones(players) if seat_weights is None else np.asarray(seat_weights, dtype=float)
    if w.shape != (players,):
        raise ValueError("seat_weights needs one weight per seat")
    if strong_seat is not None:
        w = w.copy()
        w[strong_seat] *= 1 + skill
    return w


@dataclass(frozen=True)
class _ToyGame:
    """The parameters of the toy game, resolved: what one deal's outcome depends on
    besides its uniforms, the dealer and the streak.
    """

    players: int
    weights: np.ndarray  # (P,) relative win weight of each seat
    draw_rate: float
    dealer_weight: float
    dealer_keeps_on_draw: bool
    dealer_multiplier: int
    names: list[str]  # pattern names, sorted
    probs: np.ndarray  # (n_patterns,) probability per win
    bonus: np.ndarray  # (n_patterns,) int64 value added
    value_mean: float
    value_bonus: int


@dataclass(frozen=True)
class _Uniforms:
    """Every random number of a frame, drawn before any parameter is applied (so the
    same seed gives the same walls under other parameters).
    """

    deal: np.ndarray  # (6, K, M): draw, winner, type, discarder, value, turns
    pattern: np.ndarray  # (n_patterns, K, M)
    kong: np.ndarray  # (K, M)

    @classmethod
    def draw(cls, seed: int, matches: int, match_length: int, n_patterns: int) -> _Uniforms:
        """The uniforms of ``matches × match_length`` deals, in a fixed order."""
        rng = np.random.default_rng(seed)
        deal = rng.random((6, matches, match_length))
        pattern = rng.random((n_patterns, matches, match_length))
        kong = rng.random((matches, match_length))
        return cls(deal, pattern, kong)


@dataclass
class _Table:
    """The per-deal outcomes, ``(K, M)`` arrays (``delta`` is ``(K, M, P)``), filled
    deal by deal.
    """

    dealer: np.ndarray
    dealer_streak: np.ndarray
    winner: np.ndarray
    win_type: np.ndarray
    discarder: np.ndarray
    value: np.ndarray
    delta: np.ndarray
    patterns: np.ndarray  # (n_patterns, K, M) bool

    @classmethod
    def empty(cls, k: int, m: int, p: int, n_patterns: int) -> _Table:
        """Unfilled outcome arrays in the schema's compact dtypes."""
        return cls(
            dealer=np.empty((k, m), dtype=np.int8),
            dealer_streak=np.empty((k, m), dtype=np.int16),
            winner=np.empty((k, m), dtype=np.int8),
            win_type=np.empty((k, m), dtype=np.int8),
            discarder=np.empty((k, m), dtype=np.int8),
            value=np.empty((k, m), dtype=np.int32),
            delta=np.zeros((k, m, p), dtype=np.int32),
            patterns=np.zeros((n_patterns, k, m), dtype=bool),
        )


_TYPE_CUT = np.cumsum([_TYPE_P[t] for t in ("self_draw", "rob_kong", "kong_draw", "instant")])
"""Cumulative win type probabilities: a uniform below the first cut is a self-draw, ..."""

_TYPE_ORDER = np.array(
    [WIN_TYPES.index(t) for t in ("self_draw", "rob_kong", "kong_draw", "instant", "discard")]
)
"""The win type code of each interval between the :data:`_TYPE_CUT` cuts (the last one,
above every cut, is a discard)."""


def _play_matches(game: _ToyGame, u: _Uniforms, first_dealer: str) -> _Table:
    """Play every match's deals in order (the dealer and streak carry from deal to deal)."""
    _, k, m = u.deal.shape
    p = game.players
    table = _Table.empty(k, m, p, len(game.names))
    dealer = np.zeros(k, dtype=np.int64) if first_dealer == "seat0" else np.arange(k) % p
    streak = np.zeros(k, dtype=np.int64)
    for j in range(m):
        table.dealer[:, j] = dealer
        table.dealer_streak[:, j] = streak
        winner, drawn = _deal_outcome(game, u, j, dealer, streak, table)
        keeps = (winner == dealer) | (drawn & game.dealer_keeps_on_draw)
        streak = np.where(keeps, streak + 1, 0)
        dealer = np.where(keeps, dealer, (dealer + 1) % p)
    return table


def _deal_outcome(game: _ToyGame, u: _Uniforms, j: int, dealer, streak, table: _Table):
    """Deal ``j`` of every match: winner, win type, discarder, patterns, value and the
    payments, written into column ``j`` of ``table``; returns ``(winner, drawn)``.
    """
    k = dealer.shape[0]
    p = game.players
    uj = u.deal[:, :, j]
    weights = np.broadcast_to(game.weights, (k, p)).copy()
    weights[np.arange(k), dealer] *= game.dealer_weight
    cum = np.cumsum(weights, axis=1)
    pick = (uj[1, :, None] * cum[:, -1:] > cum).sum(axis=1)
    drawn = uj[0] < game.draw_rate
    winner = np.where(drawn, -1, pick)
    t_idx = np.searchsorted(_TYPE_CUT, uj[2], side="right")
    wtype = np.where(drawn, WIN_TYPES.index("none"), _TYPE_ORDER[t_idx])
    fed = np.isin(wtype, [WIN_TYPES.index("discard"), WIN_TYPES.index("rob_kong")])
    offset = 1 + (uj[3] * (p - 1)).astype(np.int64)
    discarder = np.where(fed, (pick + offset) % p, -1)
    flags = (u.pattern[:, :, j] < game.probs[:, None]) & ~drawn[None, :]
    value = (
        1
        + np.floor(-np.log(1 - uj[4]) * (game.value_mean - 1)).astype(np.int64)
        + game.value_bonus
        + (flags * game.bonus[:, None]).sum(axis=0)
    )
    value = np.where(drawn, 0, value)
    amount = value * (1 + np.minimum(streak, 3))
    table.delta[:, j, :] = _payments(game, amount, dealer, winner, discarder, drawn, fed)
    table.winner[:, j] = winner
    table.win_type[:, j] = wtype
    table.discarder[:, j] = discarder
    table.value[:, j] = value
    table.patterns[:, :, j] = flags
    return winner, drawn


def _payments(game: _ToyGame, amount, dealer, winner, discarder, drawn, fed) -> np.ndarray:
    """One deal's zero-sum deltas ``(K, P)``: every loser pays ``amount`` (times the
    dealer multiplier when the dealer is on either side) on a self-drawn style win; the
    discarder alone pays for all on a fed win.
    """
    k = amount.shape[0]
    p = game.players
    rows = np.arange(k)
    pay = np.zeros((k, p), dtype=np.int64)
    for s in range(p):
        mult = np.where((s == dealer) | (winner == dealer), game.dealer_multiplier, 1)
        share = np.where(winner == s, 0, amount * mult)
        share = np.where(drawn, 0, share)
        pay[:, s] = share
    total = pay.sum(axis=1)
    fed_pay = np.zeros_like(pay)
    fed_pay[rows, np.maximum(discarder, 0)] = total
    pay = np.where(fed[:, None], fed_pay, pay)
    d = -pay
    d[rows, np.maximum(winner, 0)] += np.where(drawn, 0, total)
    return d


def _columns(game: _ToyGame, u: _Uniforms, t: _Table, *, seed, variant, rules_id) -> dict:
    """The DESIGN schema's columns, in order, from the played table (no extras)."""
    k, m = t.winner.shape
    won = t.winner >= 0
    turns = np.where(won, 8 + (u.deal[5] * 60).astype(np.int64), 70).astype(np.int16)
    wilds = np.where(won, (u.deal[5] * 7).astype(np.int64) % 3, 0).astype(np.int8)
    n = k * m
    cols: dict[str, object] = {
        "run_seed": np.full(n, seed, dtype=np.int64),
        "match": np.repeat(np.arange(k, dtype=np.int32), m),
        "deal": np.tile(np.arange(m, dtype=np.int16), k),
        "variant": pd.Categorical.from_codes(np.zeros(n, dtype=np.int8), [variant]),
        "rules_id": pd.Categorical.from_codes(np.zeros(n, dtype=np.int8), [rules_id]),
        "dealer": t.dealer.ravel(),
        "dealer_streak": t.dealer_streak.ravel(),
        "winner": t.winner.ravel(),
        "win_type": pd.Categorical.from_codes(t.win_type.ravel(), list(WIN_TYPES)),
        "discarder": t.discarder.ravel(),
        "turns": turns.ravel(),
        "wilds_in_hand": wilds.ravel(),
    }
    for i, name in enumerate(game.names):
        cols[f"pat_{name}"] = t.patterns[i].ravel()
    cols["value"] = t.value.ravel()
    for s in range(game.players):
        cols[f"delta_{s}"] = t.delta[:, :, s].ravel()
    return cols
