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
    p, m, k = players, match_length, matches
    pats = dict(DEFAULT_PATTERNS if patterns is None else patterns)
    names = sorted(pats)
    w = np.ones(p) if seat_weights is None else np.asarray(seat_weights, dtype=float)
    if w.shape != (p,):
        raise ValueError("seat_weights needs one weight per seat")
    if strong_seat is not None:
        w = w.copy()
        w[strong_seat] *= 1 + skill
    rng = np.random.default_rng(seed)
    u = rng.random((6, k, m))  # draw, winner, type, discarder, value, turns
    u_pat = rng.random((len(names), k, m))
    u_kong = rng.random((k, m))

    out = {
        name: np.empty((k, m), dtype=dt)
        for name, dt in (
            ("dealer", np.int8),
            ("dealer_streak", np.int16),
            ("winner", np.int8),
            ("win_type", np.int8),
            ("discarder", np.int8),
            ("value", np.int32),
        )
    }
    delta = np.zeros((k, m, p), dtype=np.int32)
    pat_out = np.zeros((len(names), k, m), dtype=bool)
    type_cut = np.cumsum([_TYPE_P[t] for t in ("self_draw", "rob_kong", "kong_draw", "instant")])
    # win type by where u falls among type_cut: self_draw, rob_kong, kong_draw, instant, discard
    order = np.array(
        [WIN_TYPES.index(t) for t in ("self_draw", "rob_kong", "kong_draw", "instant", "discard")]
    )
    probs = np.array([pats[n][0] for n in names])
    bonus = np.array([pats[n][1] for n in names], dtype=np.int64)
    rows = np.arange(k)
    if first_dealer not in ("seat0", "rotate"):
        raise ValueError("first_dealer must be 'seat0' or 'rotate'")
    dealer = np.zeros(k, dtype=np.int64) if first_dealer == "seat0" else np.arange(k) % p
    streak = np.zeros(k, dtype=np.int64)
    for j in range(m):
        out["dealer"][:, j] = dealer
        out["dealer_streak"][:, j] = streak
        weights = np.broadcast_to(w, (k, p)).copy()
        weights[rows, dealer] *= dealer_weight
        cum = np.cumsum(weights, axis=1)
        pick = (u[1, :, j, None] * cum[:, -1:] > cum).sum(axis=1)
        drawn = u[0, :, j] < draw_rate
        winner = np.where(drawn, -1, pick)
        t_idx = np.searchsorted(type_cut, u[2, :, j], side="right")
        wtype = np.where(drawn, WIN_TYPES.index("none"), order[t_idx])
        fed = np.isin(wtype, [WIN_TYPES.index("discard"), WIN_TYPES.index("rob_kong")])
        offset = 1 + (u[3, :, j] * (p - 1)).astype(np.int64)
        discarder = np.where(fed, (pick + offset) % p, -1)
        flags = (u_pat[:, :, j] < probs[:, None]) & ~drawn[None, :]
        value = (
            1
            + np.floor(-np.log(1 - u[4, :, j]) * (value_mean - 1)).astype(np.int64)
            + value_bonus
            + (flags * bonus[:, None]).sum(axis=0)
        )
        value = np.where(drawn, 0, value)
        base = 1 + np.minimum(streak, 3)
        amount = value * base
        pay = np.zeros((k, p), dtype=np.int64)
        # every loser pays `amount` (x2 when the dealer is on either side) on a self-drawn
        # style win; the discarder alone pays for all on a fed win
        for s in range(p):
            mult = np.where((s == dealer) | (winner == dealer), dealer_multiplier, 1)
            share = np.where(winner == s, 0, amount * mult)
            share = np.where(drawn, 0, share)
            pay[:, s] = share
        total = pay.sum(axis=1)
        fed_pay = np.zeros_like(pay)
        fed_pay[rows, np.maximum(discarder, 0)] = total
        pay = np.where(fed[:, None], fed_pay, pay)
        d = -pay
        d[rows, np.maximum(winner, 0)] += np.where(drawn, 0, total)
        delta[:, j, :] = d
        out["winner"][:, j] = winner
        out["win_type"][:, j] = wtype
        out["discarder"][:, j] = discarder
        out["value"][:, j] = value
        pat_out[:, :, j] = flags
        keeps = (winner == dealer) | (drawn & dealer_keeps_on_draw)
        streak = np.where(keeps, streak + 1, 0)
        dealer = np.where(keeps, dealer, (dealer + 1) % p)

    won = out["winner"] >= 0
    turns = np.where(won, 8 + (u[5] * 60).astype(np.int64), 70).astype(np.int16)
    wilds = np.where(won, (u[5] * 7).astype(np.int64) % 3, 0).astype(np.int8)
    n = k * m
    cols: dict[str, object] = {
        "run_seed": np.full(n, seed, dtype=np.int64),
        "match": np.repeat(np.arange(k, dtype=np.int32), m),
        "deal": np.tile(np.arange(m, dtype=np.int16), k),
        "variant": pd.Categorical.from_codes(np.zeros(n, dtype=np.int8), [variant]),
        "rules_id": pd.Categorical.from_codes(np.zeros(n, dtype=np.int8), [rules_id]),
        "dealer": out["dealer"].ravel(),
        "dealer_streak": out["dealer_streak"].ravel(),
        "winner": out["winner"].ravel(),
        "win_type": pd.Categorical.from_codes(out["win_type"].ravel(), list(WIN_TYPES)),
        "discarder": out["discarder"].ravel(),
        "turns": turns.ravel(),
        "wilds_in_hand": wilds.ravel(),
    }
    for i, name in enumerate(names):
        cols[f"pat_{name}"] = pat_out[i].ravel()
    cols["value"] = out["value"].ravel()
    for s in range(p):
        cols[f"delta_{s}"] = delta[:, :, s].ravel()
    if extras:
        cols["kongs"] = np.where(won, (u_kong * 3).astype(np.int64), 0).astype(np.int8).ravel()
    if strong_seat is not None:
        cols["strong_seat"] = np.full(n, strong_seat, dtype=np.int8)
    return pd.DataFrame(cols)
