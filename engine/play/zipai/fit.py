"""Fitting the 字牌 strong policy's models from the engine's own ground truth (``mjlab fit``).

The simulator knows every hidden hand, so the models of :mod:`engine.zipai.strong` are
fitted on simulated positions (:mod:`engine.play.zipai.observe`) whose outcome is exact:

- **win table** ``p_win[d, hs, t]``: the share of positions (a seat's hand after its
  discard) that do not wait yet whose seat went on to win the deal, by the hand's
  distance, its certain 胡息 class and the stock left; each cell is shrunk toward the same
  distance and stock over all 胡息 classes, that toward the distance alone (:data:`SHRINK`
  pseudo-positions), and each row made non-increasing in the distance (pool adjacent
  violators, weighted by the positions);
- **waiting table** ``p_out[ob, t]``: the same share for the positions that wait, by
  their live outs (the unseen cards that would complete the hand) and the stock left,
  shrunk toward the outs alone and made non-decreasing in the outs;
- **values**: the mean points a win brings its winner (``v_base``, from the records), and
  the factors of the winner's certain 胡息 and red cards at each position of the deal he
  won (mean points of those wins over ``v_base``, shrunk toward 1); the mean payment of a
  discarder whose discard is won on (包赔) and of each other player on a self-drawn or
  flipped win (``loss``);
- **composition**: what the wins were made of, so that the strong bot can price them
  under another run's rules (engine.play.zipai.loop.derive_values): the share of each
  colour class (none, 黑胡, 一点朱, 红胡, 全红) by the red cards the winner held at the
  position, and over all wins; the share of each win method (another player's card, 自摸,
  the 王 shapes) over all wins and over the self-drawn and flipped ones; the mean 胡息,
  醒 (as counted) and 醒 of a kind turned up at random (real cards / 20 plus 王) by the
  winner's certain 胡息 at the position, and over all the winners' positions; and the
  rules the values were fitted under (``fit_rules``: the 番 factors, 囤 per 醒, 双醒, 番
  added or multiplied, the players who pay, the 醒 procedure);
- **danger**: an L2-penalised logistic regression (engine._fitting.L2) of "the opponent can win
  on this card now" on the danger features of (opponent, card).

Everything is a pure function of the variant, its rules, the policies, the deal count and
the seed, so :func:`fit_zipai` reproduces committed models exactly.
"""

from __future__ import annotations

import numpy as np

from engine import abi
from engine.play import drivers as _drivers
from engine.play.zipai import observe as O
from engine.zipai import layout as Z
from engine.zipai import params as P
from engine.zipai.strong import MAX_FI

__all__ = ["collect", "fit_zipai", "SHRINK", "ROWS_PER_DEAL"]

SHRINK = 20.0
"""Pseudo-positions of the win table's shrinkage (and of the value factors' toward 1)."""
ROWS_PER_DEAL = 400
"""Observation rows reserved per deal at first (a block that overflows them is played
again with more room: engine.play.drivers.collect)."""


def collect(variant, resolved, deals, seed, policies, match_length=16, threads=2,
            block_matches=32, on_block=None):  # fmt: skip
    """Play ``deals`` deals (whole matches) with observation on
    (:func:`engine.play.drivers.collect`).

    Returns ``(hand rows, danger rows, records int32 (deals, N_COLS))``; the danger rows
    keep the label, the feature count and the features (int64).
    """
    from engine.play.zipai.testing import DRIVER

    def split(rows):
        hand = rows[rows[:, 0] == O.O_HAND][:, : O.H_FBITS + 1].copy()
        danger = rows[rows[:, 0] == O.O_DANGER][:, : O.D_F + MAX_FI].copy()
        return hand, danger

    return _drivers.collect(
        DRIVER, variant, resolved, deals, seed, policies, match_length=match_length,
        threads=threads, block_matches=block_matches, on_block=on_block,
        rows_per_deal=ROWS_PER_DEAL, obs_width=O.OBS_W, split=split,
    )  # fmt: skip


def _out_table(hand: np.ndarray) -> np.ndarray:
    """``p_out [N_OB, N_T]`` from the O_HAND rows of waiting hands (module docstring)."""
    hand = hand[hand[:, O.H_OUTS] > 0]
    outs = hand[:, O.H_OUTS]
    ob = np.where(outs <= 6, np.maximum(outs, 1) - 1, np.where(outs <= 8, 6, 7))
    t = np.clip(np.maximum(hand[:, O.H_LIVE], 0) // 7, 0, P.N_T - 1)
    won = hand[:, O.H_WON].astype(np.float64)
    shape = (P.N_OB, P.N_T)
    flat = np.ravel_multi_index((ob, t), shape)
    n = np.bincount(flat, minlength=np.prod(shape)).reshape(shape).astype(np.float64)
    w = np.bincount(flat, weights=won, minlength=np.prod(shape)).reshape(shape)
    base = (won.sum() + 1.0) / (won.size + 2.0)
    nb, wb = n.sum(axis=1), w.sum(axis=1)
    p_b = (wb + SHRINK * base) / (nb + SHRINK)
    p = (w + SHRINK * p_b[:, None]) / (n + SHRINK)
    for b in range(P.N_T):
        p[:, b] = _decreasing(p[::-1, b], n[::-1, b] + 1.0)[::-1]
    return p


def _win_table(hand: np.ndarray, min_huxi: int) -> np.ndarray:
    """``p_win [N_D, N_HS, N_T]`` from the O_HAND rows of hands that do not wait (module
    docstring).
    """
    hand = hand[hand[:, O.H_OUTS] == 0]
    d = np.clip(hand[:, O.H_D], 0, P.N_D - 1)
    hx = hand[:, O.H_HUXI]
    hs = np.where(hx >= min_huxi, 0, np.where(hx >= min_huxi - 3, 1, 2))
    t = np.clip(np.maximum(hand[:, O.H_LIVE], 0) // 7, 0, P.N_T - 1)
    won = hand[:, O.H_WON].astype(np.float64)
    shape = (P.N_D, P.N_HS, P.N_T)
    flat = np.ravel_multi_index((d, hs, t), shape)
    n = np.bincount(flat, minlength=np.prod(shape)).reshape(shape).astype(np.float64)
    w = np.bincount(flat, weights=won, minlength=np.prod(shape)).reshape(shape)
    base = (won.sum() + 1.0) / (won.size + 2.0)
    nd, wd = n.sum(axis=(1, 2)), w.sum(axis=(1, 2))
    p_d = (wd + SHRINK * base) / (nd + SHRINK)
    ndt, wdt = n.sum(axis=1), w.sum(axis=1)
    p_dt = (wdt + SHRINK * p_d[:, None]) / (ndt + SHRINK)
    p = (w + SHRINK * p_dt[:, None, :]) / (n + SHRINK)
    for a in range(P.N_HS):
        for b in range(P.N_T):
            p[:, a, b] = _decreasing(p[:, a, b], n[:, a, b] + 1.0)
    return p


def _decreasing(y: np.ndarray, w: np.ndarray) -> np.ndarray:
    """The weighted least-squares non-increasing fit of ``y`` (pool adjacent violators)."""
    blocks = []  # [mean, weight, length]
    for yi, wi in zip(y, w, strict=True):
        blocks.append([yi, wi, 1])
        while len(blocks) > 1 and blocks[-2][0] < blocks[-1][0]:
            m2, w2, n2 = blocks.pop()
            m1, w1, n1 = blocks.pop()
            blocks.append([(m1 * w1 + m2 * w2) / (w1 + w2), w1 + w2, n1 + n2])
    return np.concatenate([np.full(nb, m) for m, _, nb in blocks])


def _factor(idx: np.ndarray, gain: np.ndarray, size: int, vbase: float) -> np.ndarray:
    """Mean ``gain`` per bucket over ``vbase``, shrunk toward 1 (:data:`SHRINK`)."""
    idx = np.clip(idx, 0, size - 1)
    n = np.bincount(idx, minlength=size).astype(np.float64)
    s = np.bincount(idx, weights=gain, minlength=size)
    return (s / max(vbase, 1e-9) + SHRINK) / (n + SHRINK)


ON_FLIP = "win_on_flip"
"""The extra column in which a 字牌 variant records a win on a card another player turned
up (1): every other player pays it, so its 'discarder' (the flipper) did not feed it."""


def won_on_flip(v, rec: np.ndarray) -> np.ndarray:
    """Whether each record's win came on a card another player turned up (:data:`ON_FLIP`,
    an extra of the variant ``v``).
    """
    return rec[:, abi.C_EXTRA + v.extra_columns.index(ON_FLIP)] == 1


def _values(hand: np.ndarray, rec: np.ndarray, players: int, on_flip: np.ndarray):
    """``(v_base, v_huxi, v_red, loss)`` (module docstring); ``on_flip``: :func:`won_on_flip`
    of the records.
    """
    winner = rec[:, abi.C_WINNER]
    won = winner >= 0
    rows = np.arange(len(rec))
    delta = rec[:, abi.C_DELTA : abi.C_DELTA + players].astype(np.float64)
    gain = delta[rows, np.maximum(winner, 0)]
    vbase = float(gain[won].mean()) if won.any() else 1.0
    w = hand[hand[:, O.H_WON] == 1]
    hx = w[:, O.H_HUXI]
    hb = np.where(hx >= 18, 5, np.where(hx >= 12, 4, hx // 3))
    g = w[:, O.H_GAIN].astype(np.float64)
    v_huxi = _factor(hb, g, P.N_HX, vbase)
    v_red = _factor(w[:, O.H_RED], g, P.N_RED, vbase)
    disc = rec[:, abi.C_DISCARDER]
    fed = won & (rec[:, abi.C_WIN_TYPE] == abi.WIN_DISCARD) & ~on_flip & (disc >= 0)
    feed = -delta[rows, np.maximum(disc, 0)][fed]
    other = won & ~fed
    pay = []
    for s in range(players):
        sel = other & (winner != s)
        pay.append(-delta[sel, s])
    pay = np.concatenate(pay) if pay else np.zeros(0)
    loss = [float(feed.mean()) if feed.size else vbase, float(pay.mean()) if pay.size else 0.0]
    return vbase, v_huxi, v_red, loss


def _win_classes(v) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The variant's patterns of the strong model's colour classes 1.. and win methods 1..
    (``Variant.bot_targets``: ``colour``, ``method``; class 0 is none / another player's
    card), checked against the model's class counts.
    """
    targets = v.bot_targets or {}
    colours, methods = tuple(targets.get("colour", ())), tuple(targets.get("method", ()))
    if len(colours) != P.N_COL - 1 or len(methods) != P.N_METH - 1:
        raise ValueError(
            f"{v.name}: bot_targets must name {P.N_COL - 1} colour and {P.N_METH - 1} method "
            f"patterns, got {len(colours)} and {len(methods)}"
        )
    return colours, methods


def _classes(bits: np.ndarray, names: tuple[str, ...], patterns) -> np.ndarray:
    """Class of each win from its pattern bits: 1 + the first of ``names`` set, else 0."""
    bit = {p.name: i for i, p in enumerate(patterns)}
    out = np.zeros(len(bits), np.int64)
    for j, name in enumerate(names):
        out = np.where((out == 0) & ((bits >> bit[name]) & 1 == 1), j + 1, out)
    return out


def _shares(idx: np.ndarray, size: int) -> np.ndarray:
    """Share of each class ``0..size-1`` in ``idx`` (one pseudo-count each)."""
    n = np.bincount(idx, minlength=size).astype(np.float64) + 1.0
    return n / n.sum()


def _composition(v, resolved, hand: np.ndarray, rec: np.ndarray, players: int,
                 on_flip: np.ndarray) -> dict:  # fmt: skip
    """What the wins were made of, and the rules they were priced under (module docstring):
    the model blocks ``q_colour``, ``q_colour_all``, ``q_method``, ``tun``, ``tun_all``
    and ``fit_rules``.
    """
    pats = v.patterns
    colours, methods = _win_classes(v)
    won = rec[:, abi.C_WINNER] >= 0
    bits = rec[won, abi.C_PAT_LO].astype(np.int64)
    col_all = _shares(_classes(bits, colours, pats), P.N_COL)
    meth = _classes(bits, methods, pats)
    paid = (rec[won, abi.C_WIN_TYPE] == abi.WIN_SELF_DRAW) | on_flip[won]
    q_method = np.concatenate([_shares(meth, P.N_METH), _shares(meth[paid], P.N_METH)])
    w = hand[hand[:, O.H_WON] == 1]
    c = _classes(w[:, O.H_FBITS].astype(np.int64), colours, pats)
    r = np.clip(w[:, O.H_RED], 0, P.N_RED - 1)
    n = np.zeros((P.N_RED, P.N_COL))
    np.add.at(n, (r, c), 1.0)
    q_colour = (n + SHRINK * col_all) / (n.sum(axis=1, keepdims=True) + SHRINK)
    parts = np.stack([w[:, O.H_FHX], w[:, O.H_FXG], w[:, O.H_FXR] / 100.0], axis=1)
    parts = parts.astype(np.float64)
    tun_all = parts.mean(axis=0) if len(parts) else np.zeros(3)
    hx = w[:, O.H_HUXI]
    hb = np.where(hx >= 18, 5, np.where(hx >= 12, 4, hx // 3))
    tun = np.zeros((P.N_HX, 3))
    for b in range(P.N_HX):
        sel = parts[hb == b]
        tun[b] = (sel.sum(axis=0) + SHRINK * tun_all) / (len(sel) + SHRINK)
    packed = v.pack(resolved)
    active = players - (1 if resolved.get("zuoxing") else 0)
    fit_rules = [float(x) for x in packed[Z.Z_F : Z.Z_F + P.N_FAN]] + [
        float(packed[Z.Z_TUN_PER_XING]),
        float(packed[Z.Z_SHUANGXING]),
        float(packed[Z.Z_FAN_ADD]),
        float(active - 1),
        float(packed[Z.Z_XING]),
    ]
    return {
        "q_colour": q_colour.reshape(-1).round(5).tolist(),
        "q_colour_all": col_all.round(5).tolist(),
        "q_method": q_method.round(5).tolist(),
        "tun": tun.reshape(-1).round(4).tolist(),
        "tun_all": tun_all.round(4).tolist(),
        "fit_rules": fit_rules,
    }


def _danger(danger: np.ndarray) -> np.ndarray:
    """Logistic weights of the O_DANGER rows' label on their features."""
    from engine._fitting import feature_logistic

    return feature_logistic(danger, danger[:, O.D_WIN], O.D_NF, O.D_F, MAX_FI, P.N_FEATURES)


def fit_zipai(v, resolved, deals, seed, policy, threads=2, progress=False) -> dict:
    """Fit the strong models of the 字牌 variant ``v`` (see engine.runs.fit.fit)."""
    from engine._fitting import collect_with_bar

    players = v.n_players(resolved)
    policies = (policy,) * players
    hand, danger, rec = collect_with_bar(collect, v, resolved, deals, seed, policies, threads,
                                         progress)  # fmt: skip
    min_huxi = int(v.pack(resolved)[Z.Z_MIN_HUXI])
    p_win = _win_table(hand, min_huxi)
    p_out = _out_table(hand)
    on_flip = won_on_flip(v, rec)
    vbase, v_huxi, v_red, loss = _values(hand, rec, players, on_flip)
    w = _danger(danger)
    model = {
        "p_win": p_win.reshape(-1).round(6).tolist(),
        "p_out": p_out.reshape(-1).round(6).tolist(),
        "v_base": round(vbase, 4),
        "v_huxi": v_huxi.round(4).tolist(),
        "v_red": v_red.round(4).tolist(),
        "loss": [round(x, 4) for x in loss],
        "danger": w.round(5).tolist(),
        **_composition(v, resolved, hand, rec, players, on_flip),
    }
    identity = _drivers.fit_identity(v, resolved, policy, rec, deals, seed)
    if policy == "strong":
        identity["observed_with"] = _observed_with(v)
    fed = (rec[:, abi.C_WIN_TYPE] == abi.WIN_DISCARD) & ~on_flip
    summary = {
        "hand_positions": int(hand.shape[0]),
        "danger_positions": int(danger.shape[0]),
        "win_rate": float((rec[:, abi.C_WINNER] >= 0).mean()),
        "discard_win_rate": float(fed.mean()),
        "danger_rate": float(danger[:, O.D_WIN].mean()) if danger.size else 0.0,
    }
    return {"model": model, "identity": identity, "summary": summary}


def _observed_with(v) -> dict:
    """What the observed strong seats played with: the committed file's fit and tune
    commands and its parameters (a strong-observed fit depends on them; refitting from
    that file with the same command reproduces it).
    """
    import json

    from engine.play.bots import BOTDATA

    path = BOTDATA / v.name / "strong.json"
    if not path.exists():
        return {"fit": None, "tune": None, "params": {}}
    data = json.loads(path.read_text(encoding="utf-8"))
    return {
        "fit": (data.get("fit") or {}).get("command"),
        "tune": (data.get("tune") or {}).get("command"),
        "params": data.get("params") or {},
    }
