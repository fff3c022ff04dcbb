"""The ``strong`` policy of the 字牌 family (P_STRONG), compiled (numba). Kernels only.

It plays for expected points from what its seat can see, with fitted models and tuned
weights in its parameter row (:mod:`engine.zipai.params`):

- **Hand value.** A hand's expected points are ``P(win) x V``. ``P(win)``: for a hand
  that waits, from a fitted table of its live outs (the unseen cards on whose own flip
  it would win, counted by the game loop with the engine's win check) and the stock
  left (``strong.p_out``); otherwise from a fitted table of its distance
  (:func:`engine.zipai.bots.distance`: the cards still missing for its 门子, one more
  while the certain 胡息 is short of 6), its certain 胡息 class and the stock left
  (``strong.p_win``). ``V``: the fitted mean points a win brings its winner
  (``strong.v_base``), times a fitted factor of the certain 胡息 (囤) and one of the red
  cards held (``strong.v_red``: 黑胡, 一点朱, 红胡, 全红 as they come out of real play),
  the latter raised to the tuned ``strong.colour``; each re-priced from the rules they
  were fitted under to the run's (the ``derived.*`` factors :func:`derive_values` fills
  once a match from the packed rules: the 番 factors and how they combine, 囤 per 醒, 双醒, the 醒
  procedure and the players who pay, through the fitted composition of the wins).
- **Danger.** 放炮玩家包赔: a discard won on costs its discarder the win's value for
  every other player. For each opponent and card kind, a logistic model of the chance
  that the opponent can win on that card now (``strong.danger``), from the opponent's
  visible play (table groups and their known 胡息, the cards in his hand, his discards
  and whether they share a group with the card), the card (rank, size, colour, copies
  unseen), the 王 not seen (a 王 holder cannot win on a discard; a 王 shown in his hand
  makes the danger 0) and the stock left (:func:`danger_features`); fitted on positions
  where the simulator knows every hand (engine.runs.fit).
- **Decisions.** A discard maximises ``EV(hand after it) x (1 - D) x (1 - keep x kv /
  64) - alpha x (danger x what a feeder pays)``, ``D`` the chance someone wins on it and
  ``kv`` the value bot's keep value of the card: it pushes with a good hand and folds
  to safe cards with a poor one. A 碰 or 吃 is made when the best discard after it is
  worth more than the hand without it, by a tuned margin; a 吃 that breaks a pair
  first gives up the 碰 / 啸 the pair may still become (``strong.pair`` x the hand's
  points per 胡息 of :func:`engine.zipai.bots.pair_potential`). An optional win on another
  player's card is passed when the chance to self-draw (a race against the others over
  the flips left) times the self-draw's real score (every player pays, scored by the
  engine's own scorer under the run's rules for each winning card) beats the win now by
  more than the others' wins would cost meanwhile.

Ties are broken at random from the deal's bot stream, like the other policies.
"""

from __future__ import annotations

import math

import numpy as np

from engine import rng
from engine.jit.njit import kernel
from engine.zipai.bots import W_HUXI, distance, keep_values
from engine.zipai.huxi import N_TEMPLATES, RED, TEMPLATES
from engine.zipai.layout import Z_F, Z_FAN_ADD, Z_SHUANGXING, Z_TUN_PER_XING, Z_XING
from engine.zipai.params import (
    D_RALL,
    D_RHX,
    D_RLOSS,
    D_RRED,
    M_DANGER,
    M_FIT_RULES,
    M_LOSS,
    M_POUT,
    M_PWIN,
    M_QCOL,
    M_QCOL_ALL,
    M_QMETH,
    M_TUN,
    M_TUN_ALL,
    M_VBASE,
    M_VHX,
    M_VRED,
    N_COL,
    N_D,
    N_FAN,
    N_HS,
    N_HX,
    N_METH,
    N_RED,
    N_T,
    S_ALPHA,
    S_COLOUR,
    S_KEEP,
)

N_OSUM = 8
"""Per-opponent summary (:func:`engine.play.zipai.loop._opp_summaries`): seat, table groups,
known 胡息 of the table, bit set of the kinds he discarded, his discards, dealer flag,
cards in his hand, 王 shown in his hand."""
OS_SEAT, OS_NTAB, OS_THX, OS_DMASK, OS_NDISC, OS_DEALER, OS_NHAND, OS_WSHOWN = range(N_OSUM)
MAX_FI = 16
"""Most active danger features of one (opponent, card)."""


@kernel(inline="always")
def _cap(x, hi):
    return x if x < hi else hi


@kernel(inline="always")
def stock_bucket(live):
    """Stock bucket of the win table."""
    return _cap(max(live, 0) // 7, N_T - 1)


@kernel(inline="always")
def huxi_class(huxi_now, min_huxi):
    """Certain 胡息 class of the win table: 0 at the minimum, 1 within 3 of it, 2 farther."""
    if huxi_now >= min_huxi:
        return 0
    if huxi_now >= min_huxi - 3:
        return 1
    return 2


@kernel(inline="always")
def huxi_bucket(huxi_now):
    """Certain 胡息 bucket of the value model (N_HX)."""
    if huxi_now >= 18:
        return 5
    if huxi_now >= 12:
        return 4
    return huxi_now // 3


@kernel(inline="always")
def outs_bucket(outs):
    """Live-outs bucket of the waiting table (N_OB): 1..6 -> 0..5, 7-8 -> 6, 9+ -> 7."""
    if outs <= 6:
        return max(outs, 1) - 1
    if outs <= 8:
        return 6
    return 7


@kernel(refcount=False)
def hand_ev(bot, d, outs, huxi_now, min_huxi, red, live):
    """Expected points of a hand at distance ``d`` with ``outs`` live outs (0: it does not
    wait), before danger (module docstring).
    """
    t = stock_bucket(live)
    if outs > 0:
        p = bot[M_POUT + outs_bucket(outs) * N_T + t]
    else:
        db = _cap(max(d, 0), N_D - 1)
        p = bot[M_PWIN + (db * N_HS + huxi_class(huxi_now, min_huxi)) * N_T + t]
    hb = huxi_bucket(huxi_now)
    v = bot[M_VBASE] * (1.0 + bot[D_RALL]) * bot[M_VHX + hb] * (1.0 + bot[D_RHX + hb])
    rb = _cap(max(red, 0), N_RED - 1)
    f = bot[M_VRED + rb] * (1.0 + bot[D_RRED + rb])
    if f > 0.0:
        v *= f ** bot[S_COLOUR]
    return p * v


# ---- danger --------------------------------------------------------------------------------


@kernel(inline="always")
def _thx_bucket(thx):
    if thx <= 0:
        return 0
    if thx <= 2:
        return 1
    if thx <= 5:
        return 2
    if thx <= 8:
        return 3
    return 4


@kernel(refcount=False)
def partners(k):
    """Bit set of the kinds that share a 3-card group (句, 二七十, 大小搭) with kind ``k``."""
    m = 0
    for t in range(N_TEMPLATES[k]):
        for j in range(2, 5):
            q = TEMPLATES[k, t, j]
            if q != k:
                m |= 1 << q
    return m


@kernel(refcount=False)
def danger_features(osum, k, unseen_k, wang_unseen, live, fi):
    """Active features of (opponent ``osum``, card kind ``k``); returns their number.

    unseen_k : copies of ``k`` the deciding seat cannot see (0..3); wang_unseen : 王 it
    has not seen; live : cards left in the stock. The layout (N_FEATURES = 72): 0 bias;
    1-5 his table groups (0..4+); 6-10 the known 胡息 of his table (0, 1-2, 3-5, 6-8, 9+);
    11-14 copies of ``k`` unseen; 15 he discarded ``k``; 16 he discarded a card that
    shares a group with ``k``; 17 ``k`` is big; 18 ``k`` is red; 19-28 the rank of
    ``k``; 29-33 stock bucket (live // 8, capped 4); 34-36 王 unseen (0, 1, 2+); 37 he
    deals; 38-41 his discards (0, 1-2, 3-5, 6+); 42-44 the cards in his hand modulo 3;
    45-69 table groups x stock bucket; 70-71 unused.
    """
    nt = _cap(osum[OS_NTAB], 4)
    lb = _cap(max(live, 0) // 8, 4)
    n = 0
    fi[n] = 0
    n += 1
    fi[n] = 1 + nt
    n += 1
    fi[n] = 6 + _thx_bucket(osum[OS_THX])
    n += 1
    fi[n] = 11 + _cap(max(unseen_k, 0), 3)
    n += 1
    dm = osum[OS_DMASK]
    if (dm >> k) & 1:
        fi[n] = 15
        n += 1
    if dm & partners(k):
        fi[n] = 16
        n += 1
    if k >= 10:
        fi[n] = 17
        n += 1
    if RED[k] == 1:
        fi[n] = 18
        n += 1
    fi[n] = 19 + k % 10
    n += 1
    fi[n] = 29 + lb
    n += 1
    fi[n] = 34 + _cap(max(wang_unseen, 0), 2)
    n += 1
    if osum[OS_DEALER] == 1:
        fi[n] = 37
        n += 1
    nd = osum[OS_NDISC]
    fi[n] = 38 + (0 if nd == 0 else (1 if nd <= 2 else (2 if nd <= 5 else 3)))
    n += 1
    fi[n] = 42 + osum[OS_NHAND] % 3
    n += 1
    fi[n] = 45 + nt * 5 + lb
    n += 1
    return n


@kernel(inline="always")
def _sigmoid(z):
    if z >= 0:
        return 1.0 / (1.0 + math.exp(-z))
    e = math.exp(z)
    return e / (1.0 + e)


@kernel(refcount=False)
def danger_p(bot, fi, n):
    """The model probability of features ``fi[:n]``."""
    z = 0.0
    for i in range(n):
        z += bot[M_DANGER + fi[i]]
    return _sigmoid(z)


@kernel(refcount=False)
def discard_danger(bot, osums, n_opp, k, unseen_k, wang_unseen, live, fi):
    """``(chance someone wins on k, expected payment of feeding it)``.

    An opponent showing a 王 in his hand cannot win on a discard (rule 19): 0 for him.
    """
    keep = 1.0
    loss = 0.0
    for j in range(n_opp):
        if osums[j, OS_WSHOWN] > 0:
            continue
        n = danger_features(osums[j], k, unseen_k, wang_unseen, live, fi)
        p = danger_p(bot, fi, n)
        keep *= 1.0 - p
        loss += p * bot[M_LOSS] * (1.0 + bot[D_RLOSS])
    return 1.0 - keep, loss


@kernel(inline="always")
def _danger_lowers(bot):
    """Whether :func:`discard_danger` can only lower a discard's value in
    :func:`best_discard` (``alpha`` and the feeder's loss >= 0, as fitted and tuned): then
    a value at or below 0, or below the best so far, stays there.
    """
    return bot[S_ALPHA] >= 0.0 and bot[M_LOSS] >= 0.0 and 1.0 + bot[D_RLOSS] >= 0.0


# ---- decisions -----------------------------------------------------------------------------


@kernel(refcount=False)
def hold_ev(bot, h, need, huxi_now, min_huxi, red, unseen, live, outs):
    """Expected points of the hand ``h`` as it stands (no discard to make), ``outs`` its
    live outs (0: it does not wait).
    """
    d = distance(h, need, huxi_now, min_huxi, unseen)
    return hand_ev(bot, d, outs, huxi_now, min_huxi, red, live)


@kernel(refcount=False)
def best_discard(
    bot, h, need, huxi_now, min_huxi, red, unseen, values, live, osums, n_opp, wang_unseen,
    danger_on, bstate, kv, fi, outs,
):  # fmt: skip
    """The strong discard: ``(kind, its score in points)``; ``(-1, -inf)`` if none is free.

    A free card is one of a kind held once or twice (never a 坎 or a 王). ``h`` (21,) is
    restored; ``kv`` int64 (20,) and ``fi`` int64 (MAX_FI,) are scratch;
    ``bstate`` the bot stream (empty: the first of tied discards, for evaluations that
    need no choice); ``danger_on``: whether a discard can be won on at all; ``outs``
    int64 (20,): the live outs of the hand after discarding each kind (0: it does not
    wait; the caller counts them with the engine's win check). A discard whose value
    cannot reach the best before it (kind order) skips its danger, and one that waits
    skips its distance (its outs value it): the choice is the full scan's.
    """
    keep_values(h, unseen, values, np.int64(W_HUXI), np.int64(0), kv)
    alpha = bot[S_ALPHA]
    keep = bot[S_KEEP] / 64.0
    # danger never raises a value above max(value, 0) when its weights are not negative:
    # a discard whose bound is below the best so far cannot become it nor tie it
    bounded = danger_on and _danger_lowers(bot)
    best = -math.inf
    choice = -1
    n_best = 0
    for k in range(20):
        if h[k] != 1 and h[k] != 2:
            continue
        d = 0  # (a hand that waits is valued by its outs: hand_ev reads no distance)
        if outs[k] <= 0:
            h[k] -= 1
            d = distance(h, need, huxi_now, min_huxi, unseen)
            h[k] += 1
        v = hand_ev(bot, d, outs[k], huxi_now, min_huxi, red - RED[k], live)
        v *= 1.0 - keep * kv[k]
        if bounded and max(v, 0.0) < best:
            continue
        if danger_on:
            dwin, loss = discard_danger(bot, osums, n_opp, k, unseen[k], wang_unseen, live, fi)
            v = v * (1.0 - dwin) - alpha * loss
        if v > best:
            best = v
            choice = k
            n_best = 1
        elif v == best:
            n_best += 1
            if bstate.shape[0] > 0 and rng.below(bstate, n_best) == 0:
                choice = k
    return choice, best


# ---- the win values priced under the run's rules (the game loop, once a match) --------------
@kernel(inline="always")
def _factor(rules, row, run, bit):
    """番 factor of pattern ``bit`` (-1: 1) under the run's rules or the fit's (``row``)."""
    if bit < 0:
        return 1.0
    if run:
        return float(rules[Z_F + bit])
    return row[M_FIT_RULES + bit]


@kernel(inline="always")
def _combine(a, b, add):
    """Two 番 factors multiplied, or added (those above 1, at least 1: ``fan_combine``)."""
    if add:
        s = (a if a > 1.0 else 0.0) + (b if b > 1.0 else 0.0)
        return s if s > 1.0 else 1.0
    return a * b


@kernel(refcount=False)
def _fan_mix(rules, row, run, qc, qm, only_other, colour_bits, method_bits):
    """Mean 番 of colour classes ``row[qc:qc + N_COL]`` and win methods ``row[qm:...]``
    (``only_other``: another player's card only) under the run's rules or the fit's; the
    classes' patterns are ``colour_bits`` and ``method_bits`` (:func:`derive_values`).
    """
    add = rules[Z_FAN_ADD] == 1 if run else row[M_FIT_RULES + N_FAN + 2] > 0.5
    m_hi = 1 if only_other else N_METH
    out = 0.0
    for c in range(N_COL):
        fc = _factor(rules, row, run, colour_bits[c])
        for m in range(m_hi):
            w = row[qc + c] * (1.0 if only_other else row[qm + m])
            if w > 0.0:
                out += w * _combine(fc, _factor(rules, row, run, method_bits[m]), add)
    return out


@kernel(inline="always")
def _tun(rules, row, run, t):
    """Mean 囤 of wins whose 胡息 and 醒 means are ``row[t:t + 3]`` (M_TUN), under the run's
    rules or the fit's: 胡息 + 囤 per 醒 x 醒 (x 2 under 双醒), the 醒 of the fit's procedure
    when the run's is the same, else of a kind turned up at random.
    """
    fr = M_FIT_RULES + N_FAN
    if run:
        per = rules[Z_TUN_PER_XING] * (2 if rules[Z_SHUANGXING] == 1 else 1)
        same = rules[Z_XING] == int(row[fr + 4])
        x = row[t + 1] if same or rules[Z_XING] == 0 else row[t + 2]
    else:
        per = row[fr] * (2.0 if row[fr + 1] > 0.5 else 1.0)
        x = row[t + 1]
    return row[t] + per * x


@kernel(inline="always")
def _ratio_less_one(num, den):
    return num / den - 1.0 if den > 0.0 and num > 0.0 else 0.0


@kernel(refcount=False)
def derive_values(rules, row, active, colour_bits, method_bits):
    """Fill the derived blocks (``derived.*``, each a factor less one) of one strong row:
    its fitted win values re-priced from the rules they were fitted under
    (``strong.fit_rules``) to the run's (the 番 factors and how they combine, 囤 per 醒,
    双醒, the 醒 procedure, the ``active - 1`` players who pay). A row without fitted
    values (another policy's) keeps them 0: the fit's prices.

    The variant names its patterns of the model's classes: ``colour_bits`` (N_COL) the
    pattern bit of each colour class, ``method_bits`` (N_METH) of each win method (-1: a
    class without a pattern, factor 1); its ``derive_values`` hook calls this with them
    (engine.play.zipai.hooks).
    """
    for i in range(N_HX):
        row[D_RHX + i] = 0.0
    for i in range(N_RED):
        row[D_RRED + i] = 0.0
    row[D_RALL] = 0.0
    row[D_RLOSS] = 0.0
    row[D_RLOSS + 1] = 0.0
    payers = row[M_FIT_RULES + N_FAN + 3]
    if payers <= 0.0:
        return
    for i in range(N_HX):
        t = M_TUN + 3 * i
        row[D_RHX + i] = _ratio_less_one(_tun(rules, row, True, t), _tun(rules, row, False, t))
    for r in range(N_RED):
        q = M_QCOL + r * N_COL
        row[D_RRED + r] = _ratio_less_one(
            _fan_mix(
                rules,
                row,
                np.bool_(True),
                q,
                np.int64(M_QMETH),
                np.bool_(False),
                colour_bits,
                method_bits,
            ),
            _fan_mix(
                rules,
                row,
                np.bool_(False),
                q,
                np.int64(M_QMETH),
                np.bool_(False),
                colour_bits,
                method_bits,
            ),
        )
    r_all = (active - 1) / payers
    row[D_RALL] = r_all - 1.0
    tun = _tun(rules, row, True, M_TUN_ALL) / max(_tun(rules, row, False, M_TUN_ALL), 1e-9)
    t_, f_ = np.bool_(True), np.bool_(False)
    q_all, meth, paid_meth = np.int64(M_QCOL_ALL), np.int64(M_QMETH), np.int64(M_QMETH + N_METH)
    feed = _fan_mix(rules, row, t_, q_all, meth, t_, colour_bits, method_bits) / max(
        _fan_mix(rules, row, f_, q_all, meth, t_, colour_bits, method_bits), 1e-9
    )
    paid = _fan_mix(rules, row, t_, q_all, paid_meth, f_, colour_bits, method_bits) / max(
        _fan_mix(rules, row, f_, q_all, paid_meth, f_, colour_bits, method_bits), 1e-9
    )
    row[D_RLOSS] = r_all * feed * tun - 1.0
    row[D_RLOSS + 1] = paid * tun - 1.0
