"""The mahjong-family game loop kernel (numba): deals, draws, claims, kongs, wins.

One compiled loop plays every mahjong variant; the rules arrive as the packed int64
array ``rules`` (slots in :mod:`engine.game._layout`) and the variant's scoring through
:mod:`engine.game._hooks`. :func:`play_matches` runs a batch of matches in parallel
(``prange``), each match deal by deal because dealer rotation and streaks connect them.

Physical tiles are kinds 0..33 plus flowers 34..41 (``N_PHYS``). Each physical kind
has a role for the deal: a logical kind 0..33 (normally itself; under 丽水's 白板
stand-in the 白板 plays as the wild's kind), a wild slot (``ROLE_WILD0 + i``) or a
flower. Hands are held as logical counts ``hand (4, 34)`` plus wild tiles per slot
``wslot (4, 2)``; everything a player sees is in logical kinds.
"""

from __future__ import annotations

import numba
import numpy as np

from .. import rng
from .._numba import kernel, parallel_kernel
from ..hand._kernels import _distance
from ..tiles import N_KINDS
from . import _hooks
from ._bots import choose_discard, hand_score, waiting_score
from ._layout import (
    C_DEALER,
    C_DELTA,
    C_DISCARDER,
    C_EXTRA,
    C_PAT_HI,
    C_PAT_LO,
    C_STREAK,
    C_TURNS,
    C_VALUE,
    C_WILDS,
    C_WIN_TYPE,
    C_WINNER,
    E_CLAIM,
    E_DISCARD,
    E_DRAW,
    E_DRAWN_GAME,
    E_HORSE,
    E_KONG,
    E_PAY,
    E_TILE,
    E_WILD,
    E_WIN,
    M_ADDKONG,
    M_ANKONG,
    M_CHOW,
    M_KONG,
    M_PONG,
    MAX_EXTRA,
    N_CTX,
    N_PHYS,
    R_CHOW,
    R_DISCARD_WIN,
    R_INDICATOR,
    R_INDICATOR_LIVE,
    R_PLAYERS,
    R_RESERVE,
    R_ROB_KONG,
    R_ROT_DRAW,
    R_ROT_WIN,
    R_SETS,
    R_SHAPES,
    R_STANDIN,
    R_TILESET,
    R_WILD_DISCARD,
    R_WILD_DISCARD_FINE,
    R_WILD_DISCARD_SELFDRAW,
    R_WILD_FIXED0,
    R_WILD_FIXED1,
    R_WILD_KINDS,
    R_WILD_MODE,
    ROLE_FLOWER,
    ROLE_WILD0,
    WIN_DISCARD,
    WIN_INSTANT,
    WIN_KONG_DRAW,
    WIN_NONE,
    WIN_ROB_KONG,
    WIN_SELF_DRAW,
    X_CHOWS,
    X_DEALER,
    X_DEALER_WINS,
    X_DISCARDER,
    X_DISCARDS_TOTAL,
    X_FIRST_TURN,
    X_HORSE,
    X_INDICATOR,
    X_KONG_FROM,
    X_KONGS,
    X_LOCK,
    X_NEVENT,
    X_NHORSE,
    X_PENALTY,
    X_ROBBED,
    X_RUN_KIND,
    X_RUN_LEN,
    X_RUN_START,
    X_SEAT_DRAWS,
    X_STREAK,
    X_TURNS,
    X_VALUE,
    X_WILD0,
    X_WILD1,
    X_WILD_DISCARDED,
    X_WIN_KIND,
    X_WIN_PHYS,
    X_WIN_TYPE,
    X_WINNER,
)

AFTER_DRAW = 0
AFTER_CLAIM = 1

FINAL_ZONES = 12
"""Zones of the final-state check: 0-3 concealed, 4-7 melds, 8 discards, 9 flowers,
10 wall and set-aside tiles (counts per physical kind); 11 the winner's hand as the
evaluator saw it: logical counts 0..33, then wilds (34) and sets (35)."""


@kernel(inline="always")
def _next_kind(k):
    if k < 27:
        return k - k % 9 + (k % 9 + 1) % 9
    if k < 31:
        return 27 + (k - 27 + 1) % 4
    if k == 33:
        return 32
    if k == 32:
        return 31
    return 33


@kernel
def _ev(log, ctx, a, b, c, d, e):
    """Append an event row to the replay log (no-op unless logging)."""
    if log.shape[0] <= 1:
        return
    n = ctx[X_NEVENT]
    if n < log.shape[0]:
        log[n, 0] = a
        log[n, 1] = b
        log[n, 2] = c
        log[n, 3] = d
        log[n, 4] = e
        ctx[X_NEVENT] = n + 1


@kernel
def _pop(wall, dead, ptr, from_tail):
    """Draw the next live tile from the head (or the tail); -1 if none is live."""
    if ptr[2] <= 0:
        return -1
    if from_tail:
        while dead[ptr[1]]:
            ptr[1] -= 1
        t = wall[ptr[1]]
        ptr[1] -= 1
    else:
        while dead[ptr[0]]:
            ptr[0] += 1
        t = wall[ptr[0]]
        ptr[0] += 1
    ptr[2] -= 1
    return t


@kernel
def _aside(wall, dead, ptr, k):
    """Set aside (dead) the k-th live tile counted from the tail (k >= 1); its kind."""
    pos = ptr[1]
    seen = 0
    while pos >= ptr[0]:
        if not dead[pos]:
            seen += 1
            if seen == k:
                break
        pos -= 1
    dead[pos] = True
    ptr[2] -= 1
    return wall[pos]


@kernel
def _add(role, seat, phys, hand, wslot, flw):
    """Put a physical tile in a seat's hand; returns its logical kind, -1 wild, -2 flower."""
    r = role[phys]
    if r < N_KINDS:
        hand[seat, r] += 1
        return r
    if r == ROLE_WILD0 or r == ROLE_WILD0 + 1:
        wslot[seat, r - ROLE_WILD0] += 1
        return -1
    flw[seat, phys] += 1
    return -2


@kernel
def _unseen(hand, seat, visible, out):
    for k in range(N_KINDS):
        u = 4 - hand[seat, k] - visible[k]
        out[k] = u if u > 0 else 0


@kernel
def _meld_info(melds, nmeld, seat, out):
    mask = 0
    trip = 1
    for i in range(nmeld[seat]):
        k = melds[seat, i, 1]
        mask |= 1 << (k // 9 if k < 27 else 3)
        if melds[seat, i, 0] == M_CHOW:
            trip = 0
    out[0] = mask
    out[1] = trip
    out[2] = nmeld[seat]


@kernel
def _complete(rules, hand, seat, w, sets, tab):
    shapes = rules[R_SHAPES]
    return _distance(hand[seat], w, sets, shapes, tab) == 0


@kernel
def play_deal(
    rules,
    policies,
    seed,
    match,
    deal,
    tab,
    ctx,
    wall,
    dead,
    hand,
    wslot,
    flw,
    melds,
    nmeld,
    disc,
    ndisc,
    visible,
    role,
    pay,
    delta,
    extra,
    scratch,
    rec,
    final,
    log,
):
    """Play one deal; fills the record row ``rec`` (int32 (N_COLS,)).

    ctx must hold X_DEALER, X_STREAK, X_DEALER_WINS on entry; on return X_WINNER and
    X_WIN_TYPE tell the match loop how to rotate the dealer. ``final`` (int16
    (FINAL_ZONES, N_PHYS)) receives the final tile locations when it has that shape
    (tests), and ``log`` the replay events when it has more than one row.
    """
    players = rules[R_PLAYERS]
    dealer = ctx[X_DEALER]
    keep = np.empty(3, np.int64)
    keep[0] = ctx[X_DEALER]
    keep[1] = ctx[X_STREAK]
    keep[2] = ctx[X_DEALER_WINS]
    for i in range(ctx.shape[0]):
        ctx[i] = 0
    ctx[X_DEALER] = keep[0]
    ctx[X_STREAK] = keep[1]
    ctx[X_DEALER_WINS] = keep[2]
    ctx[X_WINNER] = -1
    ctx[X_DISCARDER] = -1
    ctx[X_KONG_FROM] = -1
    ctx[X_ROBBED] = -1
    ctx[X_WILD0] = -1
    ctx[X_WILD1] = -1
    ctx[X_INDICATOR] = -1
    ctx[X_VALUE] = 0
    ws = np.empty(4, np.uint64)
    bs = np.empty(4, np.uint64)
    rng.seed_state(ws, seed, match, deal, rng.WALL)
    rng.seed_state(bs, seed, match, deal, rng.BOTS)
    unseen = scratch[0:34]
    minfo = scratch[34:37]
    htmp = scratch[40:74]
    ptr = scratch[80:83]
    score = scratch[100:134]
    # ---- the wall -------------------------------------------------------------------
    n = rules[R_TILESET]
    i = 0
    for k in range(N_KINDS):
        for _ in range(4):
            wall[i] = k
            i += 1
    if n == 144:
        for f in range(8):
            wall[i] = 34 + f
            i += 1
    rng.shuffle(ws, wall, n)
    for i in range(n):
        dead[i] = False
    ptr[0] = 0
    ptr[1] = n - 1
    ptr[2] = n
    for k in range(N_PHYS):
        role[k] = k if k < N_KINDS else ROLE_FLOWER
    hand[:, :] = 0
    wslot[:, :] = 0
    flw[:, :] = 0
    nmeld[:] = 0
    ndisc[:] = 0
    visible[:] = 0
    pay[:, :] = 0
    delta[:] = 0
    extra[:] = 0
    # ---- wild kinds -------------------------------------------------------------------
    mode = rules[R_WILD_MODE]
    nw = rules[R_WILD_KINDS]
    if mode == 1 or mode == 2:
        if rules[R_INDICATOR] == 1:
            k_pos = 2 + rng.below(ws, 6) + rng.below(ws, 6)
        else:
            k_pos = 1
        if rules[R_INDICATOR_LIVE] == 1:
            pos = ptr[1] - (k_pos - 1)
            ind = wall[pos]
        else:
            ind = _aside(wall, dead, ptr, k_pos)
        ctx[X_INDICATOR] = ind
        if mode == 1:
            ctx[X_WILD0] = _next_kind(ind)
            if nw == 2:
                ctx[X_WILD1] = _next_kind(ctx[X_WILD0])
        else:
            ctx[X_WILD0] = ind
            if nw == 2:
                ctx[X_WILD1] = _next_kind(ind)
    elif mode == 3:
        ctx[X_WILD0] = rules[R_WILD_FIXED0]
        if nw == 2:
            ctx[X_WILD1] = rules[R_WILD_FIXED1]
    if nw == 0:
        ctx[X_WILD0] = -1
        ctx[X_WILD1] = -1
    if ctx[X_WILD0] >= 0:
        role[ctx[X_WILD0]] = ROLE_WILD0
        if rules[R_STANDIN] == 1 and ctx[X_WILD0] != 31:
            role[31] = ctx[X_WILD0]
    if ctx[X_WILD1] >= 0:
        role[ctx[X_WILD1]] = ROLE_WILD0 + 1
    _ev(log, ctx, E_WILD, ctx[X_INDICATOR], ctx[X_WILD0], ctx[X_WILD1], 0)
    # ---- horses and other tiles set aside ----------------------------------------------
    nh = _hooks.deal_setup(rules, ctx)
    ctx[X_NHORSE] = nh
    for i in range(nh):
        ctx[X_HORSE + i] = _aside(wall, dead, ptr, 1)
    # ---- deal ---------------------------------------------------------------------------
    size = 3 * rules[R_SETS] + 1
    for j in range(players):
        s = (dealer + j) % players
        take = size + (1 if s == dealer else 0)
        for _ in range(take):
            t = _pop(wall, dead, ptr, False)
            _add(role, s, t, hand, wslot, flw)
    if log.shape[0] > 1:
        for s in range(players):
            for k in range(N_KINDS):
                if hand[s, k] > 0:
                    _ev(log, ctx, E_TILE, s, _phys_of(role, k), hand[s, k], 0)
            for j in range(2):
                if wslot[s, j] > 0:
                    _ev(log, ctx, E_TILE, s, ctx[X_WILD0 + j], wslot[s, j], 0)
    # ---- play ---------------------------------------------------------------------------
    reserve = rules[R_RESERVE]
    sets_full = rules[R_SETS]
    cur = dealer
    phase = AFTER_DRAW
    kong_draw = False

    no_claims = True
    last_phys = -1
    turns = 0
    win_type = WIN_NONE
    winner = -1
    discarder = -1
    win_kind = -1
    claimed_since = False
    ctx[X_RUN_KIND] = -1
    while True:
        w_cur = wslot[cur, 0] + wslot[cur, 1]
        sets_cur = sets_full - nmeld[cur]
        pol = policies[cur]
        if phase == AFTER_DRAW:
            first = no_claims and ctx[X_SEAT_DRAWS + cur] <= (0 if cur == dealer else 1)
            ctx[X_FIRST_TURN] = 1 if first else 0
            if _hooks.four_wild_win(rules) and w_cur == 4:
                winner = cur
                win_type = WIN_INSTANT
                win_kind = -1
                break
            if _complete(rules, hand, cur, w_cur, sets_cur, tab):
                ctx[X_WINNER] = cur
                ctx[X_WIN_TYPE] = WIN_KONG_DRAW if kong_draw else WIN_SELF_DRAW
                if _hooks.win_legal(
                    rules, ctx, hand[cur], w_cur, sets_cur, melds[cur], nmeld[cur], tab
                ):
                    winner = cur
                    win_type = WIN_KONG_DRAW if kong_draw else WIN_SELF_DRAW
                    win_kind = role[last_phys] if last_phys >= 0 else -1
                    break
                ctx[X_WINNER] = -1
            # kongs: 暗杠 (four concealed) or 补杠 (add to a pong)
            kk = -1
            ktype = 0
            _unseen(hand, cur, visible, unseen)
            _meld_info(melds, nmeld, cur, minfo)
            for k in range(N_KINDS):
                if hand[cur, k] == 4 or (
                    hand[cur, k] >= 1 and _pong_index(melds, nmeld, cur, k) >= 0
                ):
                    is_an = hand[cur, k] == 4
                    if pol == 0:
                        want = rng.below(bs, 2) == 0
                    else:
                        for q in range(N_KINDS):
                            htmp[q] = hand[cur, q]
                        without = _best_distance(htmp, w_cur, sets_cur, rules[R_SHAPES], tab)
                        if is_an:
                            htmp[k] -= 4
                            with_k = _distance(htmp, w_cur, sets_cur - 1, rules[R_SHAPES], tab)
                        else:
                            htmp[k] -= 1
                            with_k = _distance(htmp, w_cur, sets_cur, rules[R_SHAPES], tab)
                        want = with_k <= without
                    if want:
                        kk = k
                        ktype = M_ANKONG if is_an else M_ADDKONG
                        break
            if kk >= 0:
                if ktype == M_ADDKONG and rules[R_ROB_KONG] == 1:
                    robber = -1
                    for j in range(1, players):
                        s = (cur + j) % players
                        ws_ = wslot[s, 0] + wslot[s, 1]
                        hand[s, kk] += 1
                        ok = _complete(rules, hand, s, ws_, sets_full - nmeld[s], tab)
                        if ok:
                            ctx[X_WINNER] = s
                            ctx[X_WIN_TYPE] = WIN_ROB_KONG
                            ok = _hooks.win_legal(
                                rules,
                                ctx,
                                hand[s],
                                ws_,
                                sets_full - nmeld[s],
                                melds[s],
                                nmeld[s],
                                tab,
                            )
                            ctx[X_WINNER] = -1
                        if ok:
                            robber = s
                            break
                        hand[s, kk] -= 1
                    if robber >= 0:
                        winner = robber
                        win_type = WIN_ROB_KONG
                        discarder = cur
                        win_kind = kk
                        last_phys = _phys_of(role, kk)
                        ctx[X_ROBBED] = cur
                        hand[cur, kk] -= 1
                        break
                if ktype == M_ANKONG:
                    hand[cur, kk] -= 4
                    m = nmeld[cur]
                    melds[cur, m, 0] = M_ANKONG
                    melds[cur, m, 1] = kk
                    melds[cur, m, 2] = cur
                    nmeld[cur] = m + 1
                else:
                    hand[cur, kk] -= 1
                    m = _pong_index(melds, nmeld, cur, kk)
                    melds[cur, m, 0] = M_ADDKONG
                    visible[kk] += 1
                ctx[X_KONGS] += 1
                no_claims = False
                _hooks.on_kong(rules, ctx, pay, cur, ktype, cur, players)
                _ev(log, ctx, E_KONG, cur, ktype, _phys_of(role, kk), 0)
                if ptr[2] <= reserve:
                    break
                t = _pop(wall, dead, ptr, True)
                ctx[X_SEAT_DRAWS + cur] += 1
                turns += 1
                _add(role, cur, t, hand, wslot, flw)
                last_phys = t
                kong_draw = True
                ctx[X_KONG_FROM] = -1
                _ev(log, ctx, E_DRAW, cur, t, 1, 0)
                continue
        # ---- discard ----------------------------------------------------------------------
        _unseen(hand, cur, visible, unseen)
        _meld_info(melds, nmeld, cur, minfo)
        for q in range(N_KINDS):
            htmp[q] = hand[cur, q]
        allow_wild = rules[R_WILD_DISCARD] > 0
        k = choose_discard(
            pol,
            htmp,
            w_cur,
            sets_cur,
            rules[R_SHAPES],
            tab,
            rules,
            unseen,
            bs,
            minfo,
            allow_wild,
            score,
        )
        if k < 0:
            slot = 0 if wslot[cur, 0] > 0 else 1
            wslot[cur, slot] -= 1
            phys = ctx[X_WILD0 + slot]
            if rules[R_WILD_DISCARD] == 2:
                fine = rules[R_WILD_DISCARD_FINE]
                for s in range(players):
                    if s != cur:
                        pay[cur, s] += fine
                        ctx[X_PENALTY + cur] -= fine
                        ctx[X_PENALTY + s] += fine
            if rules[R_WILD_DISCARD_SELFDRAW] == 1:
                ctx[X_WILD_DISCARDED + cur] = 1
        else:
            hand[cur, k] -= 1
            phys = _phys_of(role, k)
            visible[k] += 1
        disc[cur, ndisc[cur]] = phys
        ndisc[cur] += 1
        ctx[X_DISCARDS_TOTAL] += 1
        if phys == ctx[X_RUN_KIND] and not claimed_since:
            ctx[X_RUN_LEN] += 1
        else:
            ctx[X_RUN_KIND] = phys
            ctx[X_RUN_LEN] = 1
            ctx[X_RUN_START] = cur
        claimed_since = False
        _hooks.on_discard(rules, ctx, pay, cur, phys, players)
        _ev(log, ctx, E_DISCARD, cur, phys, 0, 0)
        kong_draw = False
        # ---- claims -----------------------------------------------------------------------
        claimed = False
        if k >= 0:
            ctx[X_FIRST_TURN] = 1 if (no_claims and ctx[X_DISCARDS_TOTAL] == 1) else 0
            if rules[R_DISCARD_WIN] == 1:
                for j in range(1, players):
                    s = (cur + j) % players
                    if ctx[X_LOCK + s] == 1 or ctx[X_WILD_DISCARDED + s] == 1:
                        continue
                    ws_ = wslot[s, 0] + wslot[s, 1]
                    hand[s, k] += 1
                    ok = _complete(rules, hand, s, ws_, sets_full - nmeld[s], tab)
                    if ok:
                        ctx[X_WINNER] = s
                        ctx[X_WIN_TYPE] = WIN_DISCARD
                        ok = _hooks.win_legal(
                            rules, ctx, hand[s], ws_, sets_full - nmeld[s], melds[s], nmeld[s], tab
                        )
                        ctx[X_WINNER] = -1
                    if ok:
                        winner = s
                        break
                    hand[s, k] -= 1
                if winner >= 0:
                    win_type = WIN_DISCARD
                    discarder = cur
                    win_kind = k
                    last_phys = phys
                    visible[k] -= 1
                    ndisc[cur] -= 1
                    break
            # 碰 / 明杠 by any other seat
            for j in range(1, players):
                s = (cur + j) % players
                if hand[s, k] < 2:
                    continue
                ws_ = wslot[s, 0] + wslot[s, 1]
                sets_s = sets_full - nmeld[s]
                ps = policies[s]
                _unseen(hand, s, visible, unseen)
                _meld_info(melds, nmeld, s, minfo)
                for q in range(N_KINDS):
                    htmp[q] = hand[s, q]
                kong_ok = hand[s, k] == 3 and ptr[2] > reserve
                do = 0
                if ps == 0:
                    r = rng.below(bs, 3 if kong_ok else 2)
                    do = r  # 0 pass, 1 pong, 2 kong
                else:
                    now = waiting_score(
                        ps, htmp, ws_, sets_s, rules[R_SHAPES], tab, rules, unseen, minfo
                    )
                    if kong_ok:
                        htmp[k] -= 3
                        after_k = _distance(htmp, ws_, sets_s - 1, rules[R_SHAPES], tab)
                        htmp[k] += 3
                        if after_k <= _distance(htmp, ws_, sets_s, rules[R_SHAPES], tab):
                            do = 2
                    if do == 0:
                        htmp[k] -= 2
                        minfo[1] = minfo[1]
                        minfo[0] |= 1 << (k // 9 if k < 27 else 3)
                        minfo[2] += 1
                        after = hand_score(
                            ps,
                            htmp,
                            ws_,
                            sets_s - 1,
                            rules[R_SHAPES],
                            tab,
                            rules,
                            unseen,
                            minfo,
                            score,
                        )
                        htmp[k] += 2
                        if after < now:
                            do = 1
                if do > 0:
                    ndisc[cur] -= 1
                    m = nmeld[s]
                    melds[s, m, 0] = M_PONG if do == 1 else M_KONG
                    melds[s, m, 1] = k
                    melds[s, m, 2] = cur
                    nmeld[s] = m + 1
                    hand[s, k] -= 2 if do == 1 else 3
                    visible[k] += 2 if do == 1 else 3
                    no_claims = False
                    claimed = True
                    claimed_since = True
                    _ev(log, ctx, E_CLAIM, s, melds[s, m, 0], phys, cur)
                    if do == 2:
                        ctx[X_KONGS] += 1
                        _hooks.on_kong(rules, ctx, pay, s, M_KONG, cur, players)
                        t = _pop(wall, dead, ptr, True)
                        ctx[X_SEAT_DRAWS + s] += 1
                        turns += 1
                        _add(role, s, t, hand, wslot, flw)
                        last_phys = t
                        _ev(log, ctx, E_DRAW, s, t, 1, 0)
                        kong_draw = True
                        ctx[X_KONG_FROM] = cur
                        phase = AFTER_DRAW
                    else:
                        phase = AFTER_CLAIM
                    cur = s
                break
            if claimed:
                continue
            # 吃 by the next seat
            if rules[R_CHOW] == 1 and k < 27:
                s = (cur + 1) % players
                pos = k % 9
                best_opt = -1
                ws_ = wslot[s, 0] + wslot[s, 1]
                sets_s = sets_full - nmeld[s]
                ps = policies[s]
                n_opt = 0
                for lo in range(pos - 2, pos + 1):
                    if lo < 0 or lo > 6:
                        continue
                    ok = True
                    for q in range(3):
                        kind = k - pos + lo + q
                        if kind != k and hand[s, kind] == 0:
                            ok = False
                    if ok:
                        n_opt += 1
                if n_opt > 0:
                    _unseen(hand, s, visible, unseen)
                    _meld_info(melds, nmeld, s, minfo)
                    for q in range(N_KINDS):
                        htmp[q] = hand[s, q]
                    if ps == 0:
                        r = rng.below(bs, n_opt + 1)
                        idx = 0
                        for lo in range(pos - 2, pos + 1):
                            if lo < 0 or lo > 6:
                                continue
                            ok = True
                            for q in range(3):
                                kind = k - pos + lo + q
                                if kind != k and hand[s, kind] == 0:
                                    ok = False
                            if ok:
                                idx += 1
                                if idx == r:
                                    best_opt = lo
                    else:
                        now = waiting_score(
                            ps, htmp, ws_, sets_s, rules[R_SHAPES], tab, rules, unseen, minfo
                        )
                        best = now
                        m0 = minfo[0]
                        m1 = minfo[1]
                        for lo in range(pos - 2, pos + 1):
                            if lo < 0 or lo > 6:
                                continue
                            ok = True
                            for q in range(3):
                                kind = k - pos + lo + q
                                if kind != k and hand[s, kind] == 0:
                                    ok = False
                            if not ok:
                                continue
                            for q in range(3):
                                kind = k - pos + lo + q
                                if kind != k:
                                    htmp[kind] -= 1
                            minfo[0] = m0 | (1 << (k // 9))
                            minfo[1] = 0
                            minfo[2] = nmeld[s] + 1
                            sc = hand_score(
                                ps,
                                htmp,
                                ws_,
                                sets_s - 1,
                                rules[R_SHAPES],
                                tab,
                                rules,
                                unseen,
                                minfo,
                                score,
                            )
                            minfo[0] = m0
                            minfo[1] = m1
                            minfo[2] = nmeld[s]
                            for q in range(3):
                                kind = k - pos + lo + q
                                if kind != k:
                                    htmp[kind] += 1
                            if sc < best:
                                best = sc
                                best_opt = lo
                    if best_opt >= 0:
                        base = k - pos + best_opt
                        for q in range(3):
                            if base + q != k:
                                hand[s, base + q] -= 1
                                visible[base + q] += 1
                        ndisc[cur] -= 1
                        m = nmeld[s]
                        melds[s, m, 0] = M_CHOW
                        melds[s, m, 1] = base
                        melds[s, m, 2] = cur
                        nmeld[s] = m + 1
                        ctx[X_CHOWS + 4 * s + cur] += 1
                        no_claims = False
                        claimed_since = True
                        _ev(log, ctx, E_CLAIM, s, M_CHOW, _phys_of(role, base), cur)
                        cur = s
                        phase = AFTER_CLAIM
                        continue
        # ---- next draw ------------------------------------------------------------------
        if ptr[2] <= reserve:
            break
        cur = (cur + 1) % players
        t = _pop(wall, dead, ptr, False)
        ctx[X_SEAT_DRAWS + cur] += 1
        turns += 1
        _add(role, cur, t, hand, wslot, flw)
        last_phys = t

        ctx[X_KONG_FROM] = -1
        ctx[X_LOCK + cur] = 0
        _ev(log, ctx, E_DRAW, cur, t, 0, 0)
        phase = AFTER_DRAW
    # ---- settlement ---------------------------------------------------------------------------
    ctx[X_TURNS] = turns
    ctx[X_WINNER] = winner
    ctx[X_WIN_TYPE] = win_type
    ctx[X_DISCARDER] = discarder
    ctx[X_WIN_KIND] = win_kind
    ctx[X_WIN_PHYS] = last_phys if winner >= 0 else -1
    if win_type != WIN_KONG_DRAW:
        ctx[X_KONG_FROM] = -1
    bits = np.int64(0)
    w_win = 0
    if winner >= 0:
        w_win = wslot[winner, 0] + wslot[winner, 1]
        bits = _hooks.win_patterns(
            rules,
            ctx,
            hand[winner],
            w_win,
            sets_full - nmeld[winner],
            melds[winner],
            nmeld[winner],
            tab,
        )
        _ev(log, ctx, E_WIN, winner, win_type, ctx[X_WIN_PHYS], discarder)
    else:
        _ev(log, ctx, E_DRAWN_GAME, 0, 0, 0, 0)
    value = _hooks.settle(rules, ctx, pay, bits, players, delta, extra)
    for i in range(ctx[X_NHORSE]):
        _ev(log, ctx, E_HORSE, ctx[X_HORSE + i], 0, 0, 0)
    for s in range(players):
        _ev(log, ctx, E_PAY, s, delta[s], 0, 0)
    rec[C_DEALER] = dealer
    rec[C_STREAK] = ctx[X_STREAK]
    rec[C_WINNER] = winner
    rec[C_WIN_TYPE] = win_type
    rec[C_DISCARDER] = discarder
    rec[C_TURNS] = turns
    rec[C_WILDS] = w_win
    rec[C_VALUE] = value
    for s in range(4):
        rec[C_DELTA + s] = delta[s] if s < players else 0
    rec[C_PAT_LO] = np.int32(bits & 0x7FFFFFFF)
    rec[C_PAT_HI] = np.int32((bits >> 31) & 0x7FFFFFFF)
    for i in range(MAX_EXTRA):
        rec[C_EXTRA + i] = extra[i]
    if final.shape[0] == FINAL_ZONES:
        _final_state(
            ctx, wall, dead, ptr, hand, wslot, flw, melds, nmeld, disc, ndisc, role, players, final
        )
        if winner >= 0:
            for k in range(N_KINDS):
                final[11, k] = hand[winner, k]
            final[11, 34] = w_win
            final[11, 35] = sets_full - nmeld[winner]


@kernel
def _phys_of(role, k):
    """The physical kind that plays as logical kind ``k`` this deal."""
    if role[k] == k:
        return k
    for p in range(N_KINDS):
        if role[p] == k:
            return p
    return k


@kernel
def _pong_index(melds, nmeld, seat, k):
    for i in range(nmeld[seat]):
        if melds[seat, i, 0] == M_PONG and melds[seat, i, 1] == k:
            return i
    return -1


@kernel
def _best_distance(h, w, sets, shapes, tab):
    """Distance after the best discard of a ``3*sets+2``-tile hand."""
    best = 99
    for k in range(N_KINDS):
        if h[k] == 0:
            continue
        h[k] -= 1
        d = _distance(h, w, sets, shapes, tab)
        h[k] += 1
        if d < best:
            best = d
    return best


@kernel
def _final_state(
    ctx, wall, dead, ptr, hand, wslot, flw, melds, nmeld, disc, ndisc, role, players, final
):
    """Where every physical tile is at the end of the deal (for conservation checks)."""
    final[:, :] = 0
    for s in range(players):
        for k in range(N_KINDS):
            if hand[s, k] > 0:
                final[s, _phys_of(role, k)] += hand[s, k]
        for j in range(2):
            if wslot[s, j] > 0:
                final[s, ctx[X_WILD0 + j]] += wslot[s, j]
        for i in range(nmeld[s]):
            t = melds[s, i, 0]
            k = melds[s, i, 1]
            if t == M_CHOW:
                for q in range(3):
                    final[4 + s, _phys_of(role, k + q)] += 1
            elif t == M_PONG:
                final[4 + s, _phys_of(role, k)] += 3
            else:
                final[4 + s, _phys_of(role, k)] += 4
        for i in range(ndisc[s]):
            final[8, disc[s, i]] += 1
        for p in range(N_PHYS):
            final[9, p] += flw[s, p]
    for pos in range(wall.shape[0]):
        if pos >= ptr[0] and pos <= ptr[1]:
            if wall[pos] >= 0:
                final[10, wall[pos]] += 1
        elif dead[pos]:
            final[10, wall[pos]] += 1


@kernel
def play_match(rules, policies, seed, match, n_deals, tab, rec_out, final_out, log, log_deal):
    """Play the first ``n_deals`` deals of match ``match``; rows go to ``rec_out``.

    final_out : int16 (n_deals, FINAL_ZONES, N_PHYS) to receive final tile locations, or
        an array of another first dimension to skip that.
    log, log_deal : the replay log (int32 (MAX_EVENTS, 5)) filled for deal ``log_deal``.
    """
    players = rules[R_PLAYERS]
    n_tiles = rules[R_TILESET]
    ctx = np.zeros(N_CTX, np.int64)
    wall = np.full(n_tiles, -1, np.int64)
    dead = np.zeros(n_tiles, np.bool_)
    hand = np.zeros((4, N_KINDS), np.int64)
    wslot = np.zeros((4, 2), np.int64)
    flw = np.zeros((4, N_PHYS), np.int64)
    melds = np.zeros((4, 8, 3), np.int64)
    nmeld = np.zeros(4, np.int64)
    disc = np.zeros((4, 160), np.int64)
    ndisc = np.zeros(4, np.int64)
    visible = np.zeros(N_KINDS, np.int64)
    role = np.zeros(N_PHYS, np.int64)
    pay = np.zeros((4, 4), np.int64)
    delta = np.zeros(4, np.int64)
    extra = np.zeros(MAX_EXTRA, np.int64)
    scratch = np.zeros(160, np.int64)
    ms = np.empty(4, np.uint64)
    rng.seed_state(ms, seed, match, 0, rng.MATCH)
    dealer = rng.below(ms, players)
    streak = 0
    wins = 0
    no_final = np.zeros((1, 1), np.int16)
    no_log = np.zeros((1, 5), np.int32)
    for d in range(n_deals):
        ctx[X_DEALER] = dealer
        ctx[X_STREAK] = streak
        ctx[X_DEALER_WINS] = wins
        fin = final_out[d] if final_out.shape[0] == n_deals else no_final
        play_deal(
            rules,
            policies,
            seed,
            match,
            d,
            tab,
            ctx,
            wall,
            dead,
            hand,
            wslot,
            flw,
            melds,
            nmeld,
            disc,
            ndisc,
            visible,
            role,
            pay,
            delta,
            extra,
            scratch,
            rec_out[d],
            fin,
            log if d == log_deal else no_log,
        )
        winner = ctx[X_WINNER]
        if winner == dealer:
            streak += 1
            wins += 1
        elif winner >= 0:
            dealer = winner if rules[R_ROT_WIN] == 0 else (dealer + 1) % players
            streak = 0
            wins = 0
        else:
            if rules[R_ROT_DRAW] == 0:
                streak += 1
            else:
                dealer = (dealer + 1) % players
                streak = 0
                wins = 0


@parallel_kernel
def play_matches(rules, policies, seed, match_lo, n_matches, match_len, n_last, tab, rec_out):
    """Play matches ``match_lo .. match_lo + n_matches - 1`` in parallel.

    Each match has ``match_len`` deals except the last, which has ``n_last``; rows are
    written to ``rec_out`` at ``(m - match_lo) * match_len``.
    """
    no_final = np.zeros((0, 1, 1), np.int16)
    no_log = np.zeros((1, 5), np.int32)
    for i in numba.prange(n_matches):
        n = match_len if i < n_matches - 1 else n_last
        lo = i * match_len
        play_match(
            rules, policies, seed, match_lo + i, n, tab, rec_out[lo : lo + n], no_final, no_log, -1
        )
