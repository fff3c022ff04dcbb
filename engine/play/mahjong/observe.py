"""Positions with their true outcome, for fitting the strong policy's models. Kernels only.

When the game loop is given an observation buffer (``obs``, int64 ``(rows, OBS_W)``,
more than one row), it writes two kinds of rows while the bots play, without changing
any decision or record (the loop's context is restored after every check):

- ``O_HAND`` after each discard of a non-random seat: the seat, whether it deals, the
  live tiles, the distance of its ``3*sets+1`` tiles to each target, the plain
  ukeire, and at the end of the deal whether the seat won and the win's pattern bits;
- ``O_DANGER`` before one discard in four (the deal's discard count modulo 4, which
  depends on nothing the bots see): for each opponent and each kind the discarding
  seat holds, the danger features (engine.mahjong.strong.danger_features) and the true
  labels, whether the opponent could win on that tile now (the loop's own completion
  and legality checks) and whether he holds three of it concealed (a 明杠).

Row 0 is a header: ``[next row, deals seen, first row of the current deal]``. Rows
past the buffer's end are dropped and counted in ``obs[0, 3]`` (a danger pass stops at
its first dropped row, so the count is a lower bound).
"""

from __future__ import annotations

import numpy as np

from engine.hand._kernels import _distance, discard_ukeire
from engine.jit.njit import kernel
from engine.mahjong.evaluation import N_MINFO, meld_info
from engine.mahjong.layout import (
    R_DISCARD_WIN,
    R_SHAPES,
    R_YOUJIN,
    WIN_DISCARD,
    WIN_ROB_KONG,
    X_DEALER,
    X_DISCARDS_TOTAL,
    X_LOCK,
    X_WILD0,
    X_WILD1,
    X_WILD_DISCARDED,
    X_WIN_TYPE,
    X_WINNER,
    X_YOUJIN,
)
from engine.mahjong.params import N_TARGET
from engine.mahjong.strong import (
    MAX_FI,
    N_OSUM,
    danger_features,
    opp_summary,
    target_dists,
    wild_code,
)
from engine.play.mahjong import hooks as _hooks
from engine.tiles import N_KINDS

OBS_W = 8 + MAX_FI
"""Columns of an observation row (a danger row's features fill it)."""
O_HAND = 1
O_DANGER = 2
# hand rows: type, deal, seat, dealer, live, w, melds, uke, won, bits lo, bits hi,
# d[N_TARGET], the honor kinds held as triplets (melded or concealed, bit k - 27)
H_SEAT, H_DEALER, H_LIVE, H_W, H_MELDS, H_UKE, H_WON, H_BITS_LO, H_BITS_HI, H_D = range(2, 12)
H_HONORS = H_D + N_TARGET
# danger rows: type, deal, seat, opponent, kind, win label, kong label, n features, features
D_OPP, D_KIND, D_WIN, D_KONG, D_NF, D_F = 3, 4, 5, 6, 7, 8


@kernel
def _row(obs):
    r = obs[0, 0]
    if r >= obs.shape[0]:
        obs[0, 3] += 1
        return -1
    obs[0, 0] = r + 1
    obs[r, 1] = obs[0, 1]
    return r


@kernel
def observe_hand(rules, ctx, cur, hand, wslot, melds, nmeld, unseen, k, live, sets, tab, obs):
    """An O_HAND row for seat ``cur`` about to discard kind ``k`` (its 14 tiles in hand)."""
    r = _row(obs)
    if r < 0:
        return
    w = wslot[cur, 0] + wslot[cur, 1]
    shapes = rules[R_SHAPES]
    h = hand[cur].copy()
    uke = np.zeros(34, np.int64)
    work = np.zeros(160, np.int64)
    discard_ukeire(h, w, sets, shapes, tab, unseen, np.int64(1) << k, uke, work)
    h[k] -= 1
    minfo = np.zeros(N_MINFO, np.int64)
    meld_info(melds, nmeld, cur, minfo)
    dd = np.zeros(N_TARGET, np.int64)
    wildgame = wild_code(ctx[X_WILD0] >= 0, rules[R_YOUJIN] == 1)
    target_dists(h, w, sets, shapes, tab, minfo, wildgame, dd)
    obs[r, 0] = O_HAND
    obs[r, H_SEAT] = cur
    obs[r, H_DEALER] = 1 if cur == ctx[X_DEALER] else 0
    obs[r, H_LIVE] = live
    obs[r, H_W] = w
    obs[r, H_MELDS] = nmeld[cur]
    obs[r, H_UKE] = uke[k]
    obs[r, H_WON] = 0
    for t in range(N_TARGET):
        obs[r, H_D + t] = dd[t]
    honors = minfo[3]
    for i in range(7):
        if h[27 + i] >= 3:
            honors |= 1 << i
    obs[r, H_HONORS] = honors


@kernel
def observe_danger(
    rules, ctx, cur, hand, wslot, melds, nmeld, disc, ndisc, visible, role, live, players,
    sets_full, tab, obs,
):  # fmt: skip
    """O_DANGER rows for the discard seat ``cur`` is about to make (one deal discard in 4)."""
    if ctx[X_DISCARDS_TOTAL] % 4 != 0:
        return
    for s in range(players):
        if ctx[X_YOUJIN + s] > 0:
            return  # nobody wins on a discard, and the bots know it
    backup = ctx.copy()
    osum = np.zeros(N_OSUM, np.int64)
    fi = np.zeros(MAX_FI, np.int64)
    nw = (1 if ctx[X_WILD0] >= 0 else 0) + (1 if ctx[X_WILD1] >= 0 else 0)
    lb = min(max(live, 0) // 12, 4)
    wtype = WIN_DISCARD if rules[R_DISCARD_WIN] == 1 else WIN_ROB_KONG
    shapes = rules[R_SHAPES]
    for j in range(1, players):
        o = (cur + j) % players
        opp_summary(ctx[X_DEALER], ctx[X_WILD_DISCARDED + o], o, melds, nmeld, disc, ndisc, role,
                    osum)  # fmt: skip
        wo = wslot[o, 0] + wslot[o, 1]
        so = sets_full - nmeld[o]
        for k in range(N_KINDS):
            if hand[cur, k] == 0:
                continue
            r = _row(obs)
            if r < 0:
                return
            unseen_k = 4 - hand[cur, k] - visible[k]
            n = danger_features(osum, k, unseen_k, nw, lb, fi)
            lw = 0
            if ctx[X_LOCK + o] == 0 and ctx[X_WILD_DISCARDED + o] == 0:
                hand[o, k] += 1
                if _distance(hand[o], wo, so, shapes, tab) == 0:
                    ctx[X_WINNER] = o
                    ctx[X_WIN_TYPE] = wtype
                    ok = _hooks.win_legal(rules, ctx, hand[o], wo, so, melds[o], nmeld[o], tab)
                    lw = 1 if ok else 0
                    ctx[:] = backup
                hand[o, k] -= 1
            obs[r, 0] = O_DANGER
            obs[r, 2] = cur
            obs[r, D_OPP] = o
            obs[r, D_KIND] = k
            obs[r, D_WIN] = lw
            obs[r, D_KONG] = 1 if hand[o, k] == 3 else 0
            obs[r, D_NF] = n
            for i in range(n):
                obs[r, D_F + i] = fi[i]


@kernel
def observe_outcome(obs, winner, bits):
    """Label the O_HAND rows of the deal just played with its winner and pattern bits."""
    if obs.shape[0] <= 1:
        return
    for r in range(obs[0, 2], min(obs[0, 0], obs.shape[0])):
        if obs[r, 0] == O_HAND:
            obs[r, H_WON] = 1 if obs[r, H_SEAT] == winner else 0
            obs[r, H_BITS_LO] = bits & 0x7FFFFFFF
            obs[r, H_BITS_HI] = (bits >> 31) & 0x7FFFFFFF
    obs[0, 1] += 1
    obs[0, 2] = obs[0, 0]
