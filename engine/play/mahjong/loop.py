"""The mahjong-family game loop kernel (numba): deals, draws, claims, kongs, wins.

One compiled loop plays every mahjong variant; the rules arrive as the packed int64
array ``rules`` (slots in :mod:`engine.mahjong.layout`) and the variant's scoring through
:mod:`engine.play.mahjong.hooks`. :func:`play_matches` runs a batch of matches in parallel
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
from numba.core import types

from engine import rng
from engine._slots import Slots
from engine.abi import seat_by_dealer
from engine.hand._kernels import _distance
from engine.jit.njit import kernel, lowest_bit, parallel_kernel
from engine.mahjong.bots import (
    SCRATCH,
    choose_discard,
    hand_sc,
    hand_score,
    random_discard,
    waiting_sc,
    waiting_ukeire,
)
from engine.mahjong.evaluation import N_MINFO, discard_scores, honor_bit, meld_info
from engine.mahjong.layout import (
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
    E_FLOWER,
    E_HORSE,
    E_KONG,
    E_OPTION,
    E_PAY,
    E_TILE,
    E_WILD,
    E_WIN,
    E_YOUJIN,
    M_ADDKONG,
    M_ANKONG,
    M_CHOW,
    M_KONG,
    M_PONG,
    MAX_EXTRA,
    N_CTX,
    N_PHYS,
    OPT_ADDKONG,
    OPT_ANKONG,
    OPT_CHOW,
    OPT_MINGKONG,
    OPT_PASS_DISCARD,
    OPT_PASS_ROB,
    OPT_PASS_SELF,
    OPT_PONG,
    OPT_WAIT,
    P_RANDOM,
    P_STRONG,
    P_VALUE,
    PASS_JINQUE,
    PASS_SELF_DRAW,
    PASS_YOUJIN,
    R_BY_DEALER,
    R_CHOW,
    R_DISCARD_WIN,
    R_DRAW_ADDS_WINS,
    R_FLOWER_REPLACE,
    R_HONOR_FLOWERS,
    R_INDICATOR,
    R_INDICATOR_LIVE,
    R_INSTANT_WILDS,
    R_KONG_NEEDS_LIVE,
    R_LAST_GROUP,
    R_OPENING,
    R_PASS_LOCK,
    R_PLAYERS,
    R_RESERVE,
    R_RESERVE_ANKONG,
    R_RESERVE_INDICATOR,
    R_RESERVE_KONG,
    R_RESERVE_QUAD,
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
    R_WIN_PRIORITY,
    R_YOUJIN,
    ROLE_FLOWER,
    ROLE_WILD0,
    WIN_DISCARD,
    WIN_INSTANT,
    WIN_KONG_DRAW,
    WIN_NONE,
    WIN_ROB_KONG,
    WIN_SELF_DRAW,
    X_ANKONGS,
    X_CHOWS,
    X_DEAL_MAX_WILDS,
    X_DEALER,
    X_DEALER_WINS,
    X_DISCARDER,
    X_DISCARDS_TOTAL,
    X_FIRST_TURN,
    X_FLOWER_QUADS,
    X_FLOWER_SUITES,
    X_FLOWERS,
    X_HORSE,
    X_INDICATOR,
    X_INDICATOR_POS,
    X_KONG_FROM,
    X_KONGS,
    X_LAST_GROUP,
    X_LOCK,
    X_MINGKONGS,
    X_NEVENT,
    X_NHORSE,
    X_OPENING_WIN,
    X_PENALTY,
    X_RESERVE,
    X_ROB_INDICATOR,
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
    X_WILD_DISCARDS,
    X_WIN_KIND,
    X_WIN_PHYS,
    X_WIN_TYPE,
    X_WINNER,
    X_YOUJIN,
)
from engine.mahjong.params import (
    B_CHASE_MIN_LIVE,
    B_CLAIM_MARGIN,
    B_KONG_SLACK,
    B_PASS_SELF,
    M_STAKE,
    M_VALUE,
    N_T,
    S_ALPHA,
    S_CHASE_MIN_LIVE,
    S_CHOW_BIAS,
    S_CLAIM_BIAS,
    S_CLAIM_CLOSER,
    S_KONG_ADD,
    S_KONG_AN,
    S_KONG_BIAS,
    S_KONG_MING,
    S_KONG_TEMPO,
    S_PASS_SELF,
    S_ROB,
    S_TONGBAO,
    T_PLAIN,
    T_WILDPAIR,
)
from engine.mahjong.patterns import rest_distance
from engine.mahjong.strong import (
    FS_DANGER,
    MAX_FI,
    N_FSC,
    N_OSUM,
    SS_KONG_FI,
    SS_TARGETS,
    SSCR,
    best_discard,
    danger_bases,
    discard_danger,
    live_bucket,
    opp_summary,
    waiting_value,
    wild_code,
)
from engine.play.mahjong import hooks as _hooks
from engine.play.mahjong.observe import observe_danger, observe_hand, observe_outcome
from engine.tiles import N_KINDS

INF_KEY = 10**9
"""Above every bot key (score * 1000 - ukeire)."""
AFTER_DRAW = 0
AFTER_CLAIM = 1

FINAL_ZONES = 12
"""Zones of the final-state check: 0-3 concealed, 4-7 melds, 8 discards, 9 flowers,
10 wall and set-aside tiles (counts per physical kind); 11 the winner's hand as the
evaluator saw it: logical counts 0..33, then wilds (34) and sets (35)."""

GO, AGAIN, END = 0, 1, 2
"""What a turn phase of :func:`play_deal` answers: on to the next phase of the turn, a new
turn (of ``gs[G_CUR]``, in phase ``gs[G_PHASE]``), or the deal is over."""

(
    G_CUR,
    G_PHASE,
    G_KONG_DRAW,
    G_NO_CLAIMS,
    G_CLAIMED_SINCE,
    G_LAST_PHYS,
    G_TURNS,
    G_WINNER,
    G_WIN_TYPE,
    G_DISCARDER,
    G_WIN_KIND,
    G_FORCE_WILD,
    G_CHASE,
    G_K,
    G_PHYS,
    G_NEAR,
) = range(16)
"""Slots of ``gs``, the play's scalars that the phases of :func:`play_deal` share: the seat
in turn and its phase (AFTER_DRAW / AFTER_CLAIM); 1 if its tile came from a kong; 1 while
nobody has claimed or konged; 1 if a claim came since the last discard (a run of equal
discards breaks); the last physical tile drawn or won; the draws; the winner (-1), win type,
discarder (-1) and winning logical kind (-1); this turn's 游金 forced wild discard (1) and
金雀 chase discard (-1 none); the discard's logical kind (-1 a wild) and physical tile; a
lower bound of the distance of the seat's hand after its draw, or -1 (:func:`_self_draw`),
which its discard keeps as its waiting distance (:func:`_waitd`)."""
N_G = 16

RUNS = 16
"""Runs :func:`play_matches` splits its matches into (its parallel loop's items)."""

SCR = Slots("mahjong loop scratch")
"""The int64 scratch of :func:`workspace`, block by block: the seat's unseen counts, its
meld info and a hand copy (the bots' inputs); the wall pointers ``(head, tail, live)``;
``far`` per seat (see :func:`_deal_wall`); the distance of each seat's waiting hand
(:func:`_waitd`) and its score (:func:`_wsc`); the 补花 rounds' per-seat need; the claim
options of :func:`_claim_chow`; the bots' score scratch; the strong policy's scratch and
its view of the table (``view`` in :func:`_strong_best`)."""
SC_UNSEEN = SCR.block("unseen", N_KINDS)
SC_MINFO = SCR.block("minfo", N_MINFO)
SC_HTMP = SCR.block("htmp", N_KINDS)
SC_PTR = SCR.block("ptr", 3)
SC_FAR = SCR.block("far", 4)
SC_WAITD = SCR.block("wait_dist", 4)
SC_WSC = SCR.block("wait_score", 4)
SC_NEED = SCR.block("flower_need", 4)
SC_COPT = SCR.block("chow_options", 6)
SC_SCORE = SCR.block("score", SCRATCH)
SC_STRONG = SCR.block("strong", SSCR)
SC_VIEW = SCR.block("strong_view", 16)
N_SCR = SCR.size
"""Length of the loop scratch."""
SCR.limit = N_SCR

STATES = Slots("mahjong loop random streams")
"""The uint64 ``states`` of :func:`workspace`: the wall's stream and the bots' stream."""
ST_WALL = STATES.block("wall", 4)
ST_BOTS = STATES.block("bots", 4)
N_STATES = STATES.size
STATES.limit = N_STATES


@kernel(inline="always")
def _ptr(scratch):
    """The wall pointers ``(head, tail, live)`` in the loop scratch."""
    return scratch[SC_PTR : SC_PTR + 3]


@kernel(inline="always")
def _far(scratch):
    """``far[s]``: seat ``s``'s concealed hand is known to be two or more from complete."""
    return scratch[SC_FAR : SC_FAR + 4]


@kernel(inline="always")
def _waitd(scratch):
    """``waitd[s]``: a lower bound of the distance of seat ``s``'s concealed hand as it
    waits between its turns (``3*sets+1`` tiles), or -1 while unknown. Worked out when
    another seat's discard is checked for a win, or kept from the seat's own turn: a
    discard leaves a hand at least as far as the hand it came from (``gs[G_NEAR]``);
    kept until the seat's hand changes (a claim, a kong, its next discard). One real
    tile takes at most one off a distance (a wild may take more: it can be a fifth
    copy), so a seat waiting two or more tiles from complete cannot win on a discard or
    on a drawn tile that is not a wild: those checks are skipped, and the hand after
    such a draw is at least one less from complete than the bound.
    """
    return scratch[SC_WAITD : SC_WAITD + 4]


@kernel(inline="always")
def _wsc(scratch):
    """``wsc[s]``: the efficiency or value score of seat ``s``'s waiting hand (``3*sets+1``
    tiles, engine.mahjong.bots ``waiting_sc`` before the claim margin), or ``INF_KEY``
    while unknown: the score its discard had when it chose it (``discard_scores`` of the
    hand before the discard, the same number), kept for its claim checks until its hand
    changes (a claim, a kong, its next discard).
    """
    return scratch[SC_WSC : SC_WSC + 4]


@kernel(inline="always")
def _waiting_score(ps, h, w, sets, sh, tab, bot, minfo, kept):
    """``waiting_sc`` of the claim checks, from the score ``kept`` (:func:`_wsc`) when known."""
    if kept == INF_KEY:
        return waiting_sc(ps, h, w, sets, sh, tab, bot, minfo)
    return kept - np.int64(bot[B_CLAIM_MARGIN]) if ps == P_VALUE else kept


@kernel(inline="always")
def _bot_scratch(scratch):
    """The bots' blocks of the loop scratch: ``(unseen, minfo, htmp, score, sscr, sview)``."""
    return (
        scratch[SC_UNSEEN : SC_UNSEEN + N_KINDS],
        scratch[SC_MINFO : SC_MINFO + N_MINFO],
        scratch[SC_HTMP : SC_HTMP + N_KINDS],
        scratch[SC_SCORE : SC_SCORE + SCRATCH],
        scratch[SC_STRONG : SC_STRONG + SSCR],
        scratch[SC_VIEW : SC_VIEW + 16],
    )


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


@kernel(inline="always")
def _seat_after(s, j, players):
    """Seat ``(s + j) % players`` for ``0 <= s < players`` and ``0 <= j <= players``, without
    a division by the (run-time) number of players.
    """
    t = s + j
    return t - players if t >= players else t


@kernel(refcount=False, inline="always")  # small: inlined where called
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


@kernel(refcount=False, inline="always")  # small: inlined where called
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


@kernel(refcount=False, inline="always")  # small: inlined where called
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


@kernel(refcount=False)
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


@kernel(refcount=False)
def _unseen(hand, seat, visible, out):
    for k in range(N_KINDS):
        u = 4 - hand[seat, k] - visible[k]
        out[k] = u if u > 0 else 0


@kernel(refcount=False)
def _complete(rules, hand, seat, w, sets, tab):
    shapes = rules[R_SHAPES]
    return _distance(hand[seat], w, sets, shapes, tab) == 0


@kernel(refcount=False)
def _got_flower(rules, ctx, flw, seat, phys, log, ptr, replace):
    """A seat set a flower aside: a fourth identical flower raises the reserve; log it,
    marked 1 when no replacement follows (``replace`` false, or no live tile left).
    """
    if phys < N_KINDS and flw[seat, phys] == 4:
        ctx[X_RESERVE] += rules[R_RESERVE_QUAD]
    unreplaced = not replace or ptr[2] <= ctx[X_RESERVE]
    _ev(log, ctx, E_FLOWER, seat, phys, 1 if unreplaced else 0, 0)


@kernel(refcount=False)
def _replace_flowers(rules, ctx, wall, dead, ptr, role, seat, t, hand, wslot, flw, log):
    """补花 during play: replace the drawn flower ``t`` from the tail, again while flowers come.

    Returns the last tile drawn (not a flower), or -1 when no live tile beyond the
    reserve is left for a replacement (the deal is then drawn).
    """
    while role[t] == ROLE_FLOWER:
        _got_flower(rules, ctx, flw, seat, t, log, ptr, np.bool_(True))
        if ptr[2] <= ctx[X_RESERVE]:
            return -1
        t = _pop(wall, dead, ptr, True)
        _add(role, seat, t, hand, wslot, flw)
        _ev(log, ctx, E_DRAW, seat, t, 1, 0)
    return t


@kernel(refcount=False)
def _deal_flowers(rules, ctx, wall, dead, ptr, role, dealer, players, hand, wslot, flw, need, log):
    """补花 at the deal, in rounds from the dealer (RULEBOOK §3.1 rule 4).

    Each round, every seat with flowers not yet replaced draws that many tiles from the
    tail, dealer first; flowers drawn that way wait for the next round, which skips the
    seats that drew none. ``need`` is int64 (>= players,) scratch.
    """
    for s in range(players):
        need[s] = 0
        for p in range(N_PHYS):
            c = flw[s, p]
            need[s] += c
            for _ in range(c):
                _ev(log, ctx, E_FLOWER, s, p, 0, 0)
            if p < N_KINDS and c == 4:
                ctx[X_RESERVE] += rules[R_RESERVE_QUAD]
    more = True
    while more:
        more = False
        for j in range(players):
            s = _seat_after(dealer, j, players)
            n = need[s]
            need[s] = 0
            for _ in range(n):
                t = _pop(wall, dead, ptr, True)
                _add(role, s, t, hand, wslot, flw)
                if role[t] == ROLE_FLOWER:
                    _got_flower(rules, ctx, flw, s, t, log, ptr, np.bool_(True))
                    need[s] += 1
                    more = True


@kernel(refcount=False)
def _flower_summary(ctx, flw, players):
    """Per seat: flower tiles, sets of four identical, complete 春夏秋冬 / 梅兰竹菊."""
    for s in range(players):
        n = 0
        quads = 0
        for p in range(N_PHYS):
            n += flw[s, p]
            if p < N_KINDS and flw[s, p] == 4:
                quads += 1
        suites = 0
        for lo in (N_KINDS, N_KINDS + 4):
            if flw[s, lo] > 0 and flw[s, lo + 1] > 0 and flw[s, lo + 2] > 0 and flw[s, lo + 3] > 0:
                suites += 1
        ctx[X_FLOWERS + s] = n
        ctx[X_FLOWER_QUADS + s] = quads
        ctx[X_FLOWER_SUITES + s] = suites


@kernel(refcount=False)
def _one_wild_short(h, w, sets, tab, min_w):
    """The concealed tiles form ``sets`` complete sets with one wild left over.

    With at least ``min_w`` wilds held: the 游金 shape (``min_w = 1``, the lone wild waits
    for any tile) and the 金雀 wait (``min_w = 2``, two wilds will be the pair).
    """
    return w >= min_w and rest_distance(h, sets, np.bool_(False), tab) <= w - 1


@kernel(refcount=False)
def _discard_to_one_wild_short(hand, seat, w, sets, tab, min_w):
    """A discard (kind) that leaves :func:`_one_wild_short` (游金 or the 金雀 wait), or -1."""
    for q in range(N_KINDS):
        if hand[seat, q] > 0:
            hand[seat, q] -= 1
            ok = _one_wild_short(hand[seat], w, sets, tab, min_w)
            hand[seat, q] += 1
            if ok:
                return q
    return -1


@kernel(refcount=False)
def _passes_for_jinque(bot, policy, live, h, w, sets, tab, visible, players):
    """Whether a value or strong bot passes this plain win of ``h`` (complete) to chase
    金雀. The strong bot passes only where the chase is worth more than the win
    (:func:`_chase_pays`).
    """
    if policy == P_VALUE:
        chase = bot[B_CHASE_MIN_LIVE]
    elif policy == P_STRONG:
        chase = bot[S_CHASE_MIN_LIVE]
    else:
        return False
    if chase == 0 or w < 2:
        return False
    if live <= chase:
        return False
    if rest_distance(h, sets, np.bool_(False), tab) <= w - 2:
        return False  # already 金雀
    return policy != P_STRONG or _chase_pays(bot, live, h, w, sets, tab, visible, players)


@kernel(refcount=False)
def _chase_pays(bot, live, h, w, sets, tab, visible, players):
    """Whether chasing 金雀 from the complete ``h`` beats declaring it, for the strong bot:
    its best chase discard leaves a hand whose outs (the unseen tiles after which two
    wilds are left for the pair) come in the seat's draws left with the chance
    ``1 - (1 - outs / unseen)^draws``, times what a 金雀 win brings (``strong.value``),
    against what the plain win brings now (both with the stake a win spares). Under 游金
    the wild target's value is the mean of its 游 and 金雀 wins (engine.mahjong.strong
    WILDS_FREE): the chase is priced at that mean.
    """
    best = 0.0
    unseen_all = 0
    for r in range(N_KINDS):
        unseen_all += max(4 - h[r] - visible[r], 0)
    for q in range(N_KINDS):
        if h[q] == 0:
            continue
        h[q] -= 1
        if rest_distance(h, sets, np.bool_(False), tab) <= w - 1:  # the 金雀 wait
            outs = 0
            for r in range(N_KINDS):
                left = 4 - h[r] - visible[r]
                if left <= 0:
                    continue
                h[r] += 1
                if rest_distance(h, sets, np.bool_(False), tab) <= w - 2:
                    outs += left
                h[r] -= 1
            draws = -(-max(live, 0) // players)
            p = 1.0 - (1.0 - outs / max(unseen_all, 1)) ** draws
            if p > best:
                best = p
        h[q] += 1
    stake = 0.5 * (bot[M_STAKE] + bot[M_STAKE + 1])
    jinque = 0.5 * (bot[M_VALUE + T_WILDPAIR * 2] + bot[M_VALUE + T_WILDPAIR * 2 + 1]) + stake
    plain = 0.5 * (bot[M_VALUE + T_PLAIN * 2] + bot[M_VALUE + T_PLAIN * 2 + 1]) + stake
    return best * jinque > plain


@kernel(refcount=False)
def _passes_for_self_draw(rules, bot, policy, live, hand, seat, w, sets, k, visible, tab):
    """Whether a value or strong bot passes its win on tile ``k`` (``hand[seat]`` holds it)
    to wait for a self-draw (``value.pass_self``, ``strong.pass_self``): its outs, the
    unseen copies of the kinds that complete the hand without ``k`` (wild draws not
    counted), times ``live`` reach the parameter. ``hand`` is left unchanged.
    """
    if policy == P_VALUE:
        need = bot[B_PASS_SELF]
    elif policy == P_STRONG:
        need = bot[S_PASS_SELF]
    else:
        return False
    if need <= 0:
        return False
    h = hand[seat]
    h[k] -= 1
    outs = 0
    for q in range(N_KINDS):
        left = 4 - h[q] - visible[q]
        if left <= 0:
            continue
        h[q] += 1
        if _complete(rules, hand, seat, w, sets, tab):
            outs += left
        h[q] -= 1
    h[k] += 1
    return outs * live >= need


@kernel(refcount=False)
def _youjin_active(ctx, players):
    """Whether some seat is 游ing (then nobody wins on a discard)."""
    for s in range(players):
        if ctx[X_YOUJIN + s] > 0:
            return True
    return False


@kernel(refcount=False)
def _strong_view(rules, ctx, seat, melds, nmeld, disc, ndisc, role, live, players, osums, view):
    """What the strong policy of ``seat`` sees of the table, for engine.mahjong.strong.

    Fills ``osums`` rows ``0..n-1`` (the opponents in turn order) and ``view``: [0] the
    opponents, [1] wild kinds in play, [2] the danger model's live bucket (live // 12,
    at most 4), [3] the win tables' live bucket, [4] 1 if ``seat`` deals, [5] 1 if a
    discard can be won on now, [6] 1 if a discard can be kong'd, [7] what the wild target
    measures (engine.mahjong.strong.WILDS_NONE / _PAIR / _FREE), [8] 1 if a 补杠 can be
    robbed now; [9] is the chow claim's own (1 if the 吃 would be the seat's third from
    this discarder, set by the chow phase before the strong chow decision).
    """
    n = 0
    for j in range(1, players):
        o = _seat_after(seat, j, players)
        opp_summary(
            ctx[X_DEALER], ctx[X_WILD_DISCARDED + o], o, melds, nmeld, disc, ndisc, role, osums[n]
        )
        n += 1
    nw = (1 if ctx[X_WILD0] >= 0 else 0) + (1 if ctx[X_WILD1] >= 0 else 0)
    yj = _youjin_active(ctx, players)
    view[0] = n
    view[1] = nw
    view[2] = min(max(live, 0) // 12, 4)
    view[3] = live_bucket(live)
    view[4] = 1 if seat == ctx[X_DEALER] else 0
    view[5] = 1 if rules[R_DISCARD_WIN] == 1 and not yj else 0
    view[6] = 1 if live > rules[R_RESERVE_KONG] else 0
    view[7] = wild_code(nw > 0, rules[R_YOUJIN] == 1)
    view[8] = 1 if rules[R_ROB_KONG] == 1 and not yj else 0


@kernel(refcount=False)
def _strong_best(htmp, w, sets, sh, tab, bot, unseen, minfo, osums, view, bstate, sscr, fsc):
    """engine.mahjong.strong.best_discard with the table view of :func:`_strong_view`."""
    return best_discard(
        htmp, w, sets, sh, tab, bot, unseen, minfo, view[7], view[3], view[4], np.bool_(True),
        osums, view[0], view[1], view[2], view[5] == 1, view[6] == 1, bstate, sscr, fsc,
    )  # fmt: skip


@kernel(refcount=False)
def _strong_wait(htmp, w, sets, sh, tab, bot, unseen, minfo, view, sscr):
    """engine.mahjong.strong.waiting_value with the table view of :func:`_strong_view`."""
    return waiting_value(htmp, w, sets, sh, tab, bot, unseen, minfo, view[7], view[3],
                         view[4], sscr)  # fmt: skip


@kernel(refcount=False)
def _strong_tempo(htmp, w, sets, sh, tab, bot, unseen, minfo, view, sscr, ev):
    """What a kong's replacement draw adds to a hand worth ``ev`` (``strong.kong_tempo``):
    the hand's value with one more round of draws, ``players / 8`` of the way to the next
    live bucket.
    """
    weight = bot[S_KONG_TEMPO]
    tb = view[3]
    if weight == 0.0 or tb >= N_T - 1:
        return 0.0
    view[3] = tb + 1
    more = _strong_wait(htmp, w, sets, sh, tab, bot, unseen, minfo, view, sscr)
    view[3] = tb
    return weight * (view[0] + 1) / 8.0 * (more - ev)


@kernel(refcount=False)
def _strong_pong(
    k, kong_ok, htmp, w, sets, sh, tab, bot, unseen, minfo, osums, view, sscr, fsc, no_rng
):
    """The strong claim of discard ``k`` held twice or more: 0 pass, 1 碰, 2 明杠.

    A 碰 must gain ``strong.claim_bias`` on passing and take ``strong.claim_closer``
    tiles off the hand's distance (the 明杠 is weighed as before).
    no_rng : an empty uint64 array (comparing values needs no random tie-break).
    """
    ev_pass = _strong_wait(htmp, w, sets, sh, tab, bot, unseen, minfo, view, sscr)
    closer = bot[S_CLAIM_CLOSER]
    d_now = sscr[SS_TARGETS + T_PLAIN]  # the hand's distance, as waiting_value found it
    m0 = minfo[0]
    m2 = minfo[2]
    m3 = minfo[3]
    minfo[0] = m0 | (1 << (k // 9 if k < 27 else 3))
    minfo[2] = m2 + 1
    minfo[3] = m3 | honor_bit(k)
    htmp[k] -= 2
    near = closer <= 0 or d_now - _distance(htmp, w, sets - 1, sh, tab) >= closer
    ev_pong = -np.inf  # (not needed when the 碰 is not closer and no 明杠 is weighed)
    if near or kong_ok:
        _, ev_pong = _strong_best(htmp, w, sets - 1, sh, tab, bot, unseen, minfo, osums, view,
                                  no_rng, sscr, fsc)  # fmt: skip
    ev_kong = -np.inf
    if kong_ok:
        htmp[k] -= 1
        ev_kong = _strong_wait(htmp, w, sets - 1, sh, tab, bot, unseen, minfo, view, sscr)
        ev_kong += _strong_tempo(htmp, w, sets - 1, sh, tab, bot, unseen, minfo, view, sscr,
                                 ev_kong)  # fmt: skip
        ev_kong += bot[S_KONG_MING]
        htmp[k] += 1
    htmp[k] += 2
    minfo[0] = m0
    minfo[2] = m2
    minfo[3] = m3
    do = 0
    if near and ev_pong > ev_pass + bot[S_CLAIM_BIAS]:
        do = 1
    if kong_ok and ev_kong + bot[S_KONG_BIAS] >= max(ev_pass, ev_pong):
        do = 2
    return do


@kernel(refcount=False)
def _strong_chow(
    k, htmp, w, sets, sh, tab, bot, unseen, minfo, osums, view, sscr, fsc, no_rng, hand, s, nm
):
    """The strong 吃 of discard ``k`` by seat ``s``: the option's low rank, or -1.

    The option of the highest value that gains ``strong.chow_bias`` on passing and takes
    ``strong.claim_closer`` tiles off the hand's distance; ``view[9]`` 1 when it would
    be the seat's third 吃 from this 上家, which costs ``strong.tongbao`` (统包).
    """
    ev_pass = _strong_wait(htmp, w, sets, sh, tab, bot, unseen, minfo, view, sscr)
    closer = bot[S_CLAIM_CLOSER]
    d_now = sscr[SS_TARGETS + T_PLAIN]  # the hand's distance, as waiting_value found it
    liable = bot[S_TONGBAO] * view[9]  # the third 吃 from this 上家 (统包)
    pos = k % 9
    m0 = minfo[0]
    m1 = minfo[1]
    best = ev_pass + bot[S_CHOW_BIAS]
    choice = -1
    for lo in range(pos - 2, pos + 1):
        if not _chow_fits(hand, s, k, pos, lo):
            continue
        _chow_apply(htmp, minfo, k, lo, m0, nm, np.int64(-1))
        ev = -np.inf  # a 吃 that is not closer is not made, whatever its value
        if closer <= 0 or d_now - _distance(htmp, w, sets - 1, sh, tab) >= closer:
            _, ev = _strong_best(htmp, w, sets - 1, sh, tab, bot, unseen, minfo, osums, view,
                                 no_rng, sscr, fsc)  # fmt: skip
        _chow_apply(htmp, minfo, k, lo, m0, nm, np.int64(1))
        ev -= liable
        minfo[0] = m0
        minfo[1] = m1
        minfo[2] = nm
        if ev > best:
            best = ev
            choice = lo
    return choice


@kernel(refcount=False)
def _strong_kong(k, is_an, htmp, w, sets, sh, tab, bot, unseen, minfo, osums, view, sscr, fsc,
                 no_rng):  # fmt: skip
    """Whether the strong bot makes the 暗杠 (``is_an``) or 补杠 of ``k`` in its 14 tiles."""
    _, ev_without = _strong_best(htmp, w, sets, sh, tab, bot, unseen, minfo, osums, view,
                                 no_rng, sscr, fsc)  # fmt: skip
    m0 = minfo[0]
    m2 = minfo[2]
    m3 = minfo[3]
    if is_an:
        htmp[k] -= 4
        minfo[0] = m0 | (1 << (k // 9 if k < 27 else 3))
        minfo[2] = m2 + 1
        minfo[3] = m3 | honor_bit(k)
        ev = _strong_wait(htmp, w, sets - 1, sh, tab, bot, unseen, minfo, view, sscr)
        ev += _strong_tempo(htmp, w, sets - 1, sh, tab, bot, unseen, minfo, view, sscr, ev)
        ev += bot[S_KONG_AN]
        htmp[k] += 4
        minfo[0] = m0
        minfo[2] = m2
        minfo[3] = m3
    else:
        htmp[k] -= 1
        ev = _strong_wait(htmp, w, sets, sh, tab, bot, unseen, minfo, view, sscr)
        ev += _strong_tempo(htmp, w, sets, sh, tab, bot, unseen, minfo, view, sscr, ev)
        ev += bot[S_KONG_ADD]
        htmp[k] += 1
        if view[8] == 1:
            fi = sscr[SS_KONG_FI : SS_KONG_FI + MAX_FI]
            zb = fsc[FS_DANGER : FS_DANGER + 8]
            danger_bases(bot, osums, view[0], view[1], view[2], fi, zb)
            _, loss, _ = discard_danger(
                bot, osums, view[0], k, unseen[k], view[1], zb, np.bool_(True), np.bool_(False),
                view[4], fi,
            )  # fmt: skip
            ev -= bot[S_ALPHA] * bot[S_ROB] * loss
    return ev + bot[S_KONG_BIAS] >= ev_without


# The strong policy's decisions are called through engine.play.mahjong.hooks.late: a run
# without a strong seat does not compile them (a fifth of a cold start's compile time).
_STRONG_TUPLE = types.Tuple((types.int64, types.float64))
_late_strong_kong = _hooks.late(_strong_kong, types.boolean)
_late_strong_best = _hooks.late(_strong_best, _STRONG_TUPLE)
_late_strong_pong = _hooks.late(_strong_pong, types.int64)
_late_strong_chow = _hooks.late(_strong_chow, types.int64)
_late_strong_view = _hooks.late(_strong_view, types.none)
_STRONG_LATE = (_strong_view, _strong_kong, _strong_best, _strong_pong)
"""The strong policy's late kernels; its 吃 (:func:`_strong_chow`) only where the rules
have 吃 (:func:`_late_in_deal`)."""
# so are the observations (engine.play.mahjong.observe): only observe_matches and the tests ask
_late_observe_danger = _hooks.late(observe_danger, types.none)
_late_observe_hand = _hooks.late(observe_hand, types.none)
_late_observe_outcome = _hooks.late(observe_outcome, types.none)
_OBSERVE_LATE = (observe_danger, observe_hand, observe_outcome)


@kernel(inline="always")
def _kong_slack(bot, pol):
    """How many tiles further from complete a kong may leave a hand of policy ``pol``
    with parameter row ``bot``: the value bot's ``B_KONG_SLACK``, none for the others.
    """
    return bot[B_KONG_SLACK] if pol == P_VALUE else 0.0


@kernel(refcount=False)
def _plain_kong(pol, k, is_an, htmp, w, sets, sh, tab, bot, minfo, score):
    """Whether a bot of policy ``pol`` (efficiency or value) makes the 暗杠 (``is_an``) or
    补杠 of ``k`` with the hand ``htmp`` (restored by the caller): when the distance after
    it is no worse than after the best discard, plus the value bot's ``B_KONG_SLACK``.
    """
    # the distance after the best discard (the efficiency score is 4x it)
    without = discard_scores(np.int64(1), htmp, w, sets, sh, tab, bot, minfo, score)
    without //= 4
    if is_an:
        htmp[k] -= 4
        with_k = _distance(htmp, w, sets - 1, sh, tab)
    else:
        htmp[k] -= 1
        with_k = _distance(htmp, w, sets, sh, tab)
    return with_k <= without + _kong_slack(bot, pol)


@kernel(refcount=False)
def _plain_pong(ps, k, kong_ok, htmp, w, sets, sh, tab, bot, unseen, minfo, score, kept, no_rng):
    """What a bot of policy ``ps`` (efficiency or value) does with the discard ``k`` it
    holds twice or more: 0 pass, 1 碰, 2 明杠 (``kong_ok``: it holds three and the wall
    allows a kong). ``kept``: the hand's score as its discard found it (``_wsc``).
    """
    do = 0
    if kong_ok:
        htmp[k] -= 3
        after_k = _distance(htmp, w, sets - 1, sh, tab)
        htmp[k] += 3
        if after_k <= _distance(htmp, w, sets, sh, tab) + _kong_slack(bot, ps):
            do = 2
    if do == 0:
        # 碰 when the hand after it (and its discard) keys lower than now;
        # keys are score*1000 - ukeire, so the ukeire decides ties only
        now_sc = _waiting_score(ps, htmp, w, sets, sh, tab, bot, minfo, kept)
        htmp[k] -= 2
        minfo[0] |= 1 << (k // 9 if k < 27 else 3)
        minfo[2] += 1
        after_sc = hand_sc(ps, htmp, w, sets - 1, sh, tab, bot, minfo, score)
        if after_sc < now_sc:
            do = 1
        elif after_sc == now_sc:
            after = hand_score(htmp, w, sets - 1, sh, tab, unseen, score, after_sc, no_rng)
            htmp[k] += 2
            uke = waiting_ukeire(htmp, w, sets, sh, tab, unseen, score)
            htmp[k] -= 2
            now = now_sc * 1000 - uke
            if after < now:
                do = 1
        htmp[k] += 2
    return do


# so are the other policies' decisions (engine.mahjong.bots): a run whose seats all play
# strong does not compile them
_late_choose_discard = _hooks.late(choose_discard, types.int64)
_late_plain_kong = _hooks.late(_plain_kong, types.boolean)
_late_plain_pong = _hooks.late(_plain_pong, types.int64)
_PLAIN_LATE = (choose_discard, _plain_kong, _plain_pong)


@kernel(refcount=False)
def _discard_winner(
    rules, ctx, policies, bots, live, hand, wslot, melds, nmeld, cur, k, players, sets_full, tab,
    wtype, visible, log, waitd,
):  # fmt: skip
    """The seat that wins on logical tile ``k`` given up by ``cur`` (discard or 补杠), or -1.

    The nearest seat in turn order wins (head bump); under R_WIN_PRIORITY a higher
    ``win_priority`` (福州 金雀) beats nearer seats. Seats under the pass lock and seats
    that discarded a wild under R_WILD_DISCARD_SELFDRAW cannot win; a value bot waiting
    for 金雀 passes a plain win (R_CHASE_MIN_LIVE, ``live`` tiles beyond the reserve).
    ``hand`` is left unchanged. ``waitd`` the seats' waiting distances (:func:`_waitd`),
    filled here where unknown: a seat two or more from complete is not checked.
    """
    best = -1
    best_prio = -1
    for j in range(1, players):
        s = _seat_after(cur, j, players)
        if ctx[X_LOCK + s] == 1 or ctx[X_WILD_DISCARDED + s] == 1:
            continue
        ws_ = wslot[s, 0] + wslot[s, 1]
        sets_s = sets_full - nmeld[s]
        if waitd[s] < 0:
            waitd[s] = _distance(hand[s], ws_, sets_s, rules[R_SHAPES], tab)
        if waitd[s] >= 2:
            continue
        hand[s, k] += 1
        ok = _complete(rules, hand, s, ws_, sets_s, tab)
        if ok:
            ctx[X_WINNER] = s
            ctx[X_WIN_TYPE] = wtype
            ok = _hooks.win_legal(rules, ctx, hand[s], ws_, sets_s, melds[s], nmeld[s], tab)
            ctx[X_WINNER] = -1
        pass_opt = OPT_PASS_DISCARD if wtype == WIN_DISCARD else OPT_PASS_ROB
        if ok and _passes_for_jinque(
            bots[s], policies[s], live, hand[s], ws_, sets_s, tab, visible, players
        ):
            hand[s, k] -= 1
            ok = not _one_wild_short(hand[s], ws_, sets_s, tab, np.int64(2))
            hand[s, k] += 1
            if not ok:
                _ev(log, ctx, E_OPTION, s, pass_opt, k, PASS_JINQUE)
        if ok and _passes_for_self_draw(
            rules, bots[s], policies[s], live, hand, s, ws_, sets_s, k, visible, tab
        ):
            ok = False
            _ev(log, ctx, E_OPTION, s, pass_opt, k, PASS_SELF_DRAW)
            if rules[R_PASS_LOCK] == 1:
                ctx[X_LOCK + s] = 1
        prio = 0
        if ok and rules[R_WIN_PRIORITY] == 1:
            prio = _hooks.win_priority(rules, ctx, hand[s], ws_, sets_s, melds[s], nmeld[s], tab)
        hand[s, k] -= 1
        if ok and prio > best_prio:
            best = s
            best_prio = prio
            if rules[R_WIN_PRIORITY] == 0:
                break
    return best


@kernel(refcount=False)
def _take_indicator(ctx, wall, wslot, seat, log):
    """抢金: the set-aside indicator goes into ``seat``'s hand as a wild of slot 0."""
    wslot[seat, 0] += 1
    wall[ctx[X_INDICATOR_POS]] = -1
    ctx[X_ROB_INDICATOR] = 1
    _ev(log, ctx, E_DRAW, seat, ctx[X_INDICATOR], 1, 0)


@kernel(refcount=False)
def _opening(
    rules, ctx, wall, hand, wslot, melds, nmeld, disc, ndisc, visible, role, players, tab, log
):
    """Opening wins (R_OPENING; RULEBOOK §3.4 rules 15-17); the winning seat or -1.

    In this order: 天胡 (the dealer's tiles complete: a self-draw); 三金倒 (a seat holding
    R_INSTANT_WILDS wilds, dealer first); 抢金 by a non-dealer, nearest to the dealer
    first (his tiles plus the indicator taken as a wild complete); 抢金 by the dealer (he
    discards one tile and takes the indicator). A 抢金 or 三金倒 is an instant win. The
    indicator must be of the first wild kind (R_WILD_MODE 2).
    """
    sets_full = rules[R_SETS]
    d = ctx[X_DEALER]
    wd = wslot[d, 0] + wslot[d, 1]
    ctx[X_FIRST_TURN] = 1
    if _complete(rules, hand, d, wd, sets_full - nmeld[d], tab):
        ctx[X_WINNER] = d
        ctx[X_WIN_TYPE] = WIN_SELF_DRAW
        if _hooks.win_legal(rules, ctx, hand[d], wd, sets_full - nmeld[d], melds[d], nmeld[d], tab):
            ctx[X_OPENING_WIN] = 1
            return d
        ctx[X_WINNER] = -1
    need = rules[R_INSTANT_WILDS]
    if need > 0:
        for j in range(players):
            s = _seat_after(d, j, players)
            if wslot[s, 0] + wslot[s, 1] >= need:
                ctx[X_WIN_TYPE] = WIN_INSTANT
                ctx[X_OPENING_WIN] = 1
                return s
    if ctx[X_INDICATOR_POS] < 0 or ctx[X_WILD0] < 0:
        return -1
    for j in range(1, players):
        s = _seat_after(d, j, players)
        ws_ = wslot[s, 0] + wslot[s, 1] + 1
        sets_s = sets_full - nmeld[s]
        if _complete(rules, hand, s, ws_, sets_s, tab):
            ctx[X_WINNER] = s
            ctx[X_WIN_TYPE] = WIN_INSTANT
            if _hooks.win_legal(rules, ctx, hand[s], ws_, sets_s, melds[s], nmeld[s], tab):
                ctx[X_OPENING_WIN] = 1
                _take_indicator(ctx, wall, wslot, s, log)
                return s
            ctx[X_WINNER] = -1
    sets_d = sets_full - nmeld[d]
    for k in range(N_KINDS):
        if hand[d, k] == 0:
            continue
        hand[d, k] -= 1
        ok = _complete(rules, hand, d, wd + 1, sets_d, tab)
        if ok:
            ctx[X_WINNER] = d
            ctx[X_WIN_TYPE] = WIN_INSTANT
            ok = _hooks.win_legal(rules, ctx, hand[d], wd + 1, sets_d, melds[d], nmeld[d], tab)
            ctx[X_WINNER] = -1
        if ok:
            phys = _phys_of(role, k)
            disc[d, ndisc[d]] = phys
            ndisc[d] += 1
            visible[k] += 1
            _ev(log, ctx, E_DISCARD, d, phys, 0, 0)
            ctx[X_OPENING_WIN] = 1
            _take_indicator(ctx, wall, wslot, d, log)
            return d
        hand[d, k] += 1
    return -1


@kernel(refcount=False)
def play_deal(
    rules, policies, bots, seed, match, deal, tab, ctx, ws, rec, final, log, preset, obs
):  # fmt: skip
    """Play one deal; fills the record row ``rec`` (int32 (N_COLS,)).

    ws : the deal's work arrays, :func:`workspace` (reused from deal to deal); the play's
        own scalars (seat in turn, winner, ...) are its last array, slots ``G_*``.
    ctx must hold X_DEALER, X_STREAK, X_DEALER_WINS on entry; on return X_WINNER and
    X_WIN_TYPE tell the match loop how to rotate the dealer. ``final`` (int16
    (FINAL_ZONES, N_PHYS)) receives the final tile locations when it has that shape
    (tests), and ``log`` the replay events when it has more than one row. ``preset``
    (int64, physical kinds) replaces the shuffled wall when it holds the whole set
    (scripted tests: index 0 is the head, the last index the tail). ``obs`` receives
    observation rows (engine.play.mahjong.observe) when it has more than one row.

    The deal runs in named phases, each a kernel of its own: the deal (:func:`_deal_wall`,
    :func:`_deal_wilds`, :func:`_deal_hands`, then the opening wins of :func:`_opening`),
    turns of draw (:func:`_draw`), self-drawn win (:func:`_self_draw`), kong
    (:func:`_choose_kong`, :func:`_make_kong`), discard (:func:`_choose_discard`,
    :func:`_make_discard`) and claim resolution (:func:`_claim_win`, :func:`_claim_pong`,
    :func:`_claim_chow`), and the win and payment (:func:`_settle`). A turn phase answers
    ``GO`` (on to the next phase), ``AGAIN`` (a new turn for ``gs[G_CUR]``) or ``END``.

    The phases of every turn are inlined into this loop (``inline="always"``): a call
    passing the workspace copies its 19 array structs, which tripled the time of a
    random-policy deal. The phases met once a deal or rarely (the deal, kongs, the last
    group) stay calls of their own, except the opening win and the settlement: as kernels
    of their own they were compiled twice (numba optimizes and emits a kernel's callees
    again in each caller's module), and each is called from here only.
    """
    gs = ws[18]
    _deal_wall(rules, ctx, ws, seed, match, deal, preset)
    _deal_wilds(rules, ctx, ws, log)
    _deal_hands(rules, ctx, ws, log)
    if rules[R_OPENING] == 1 and _opening_win(rules, ctx, ws, tab, log):
        pass
    else:
        while True:
            gs[G_FORCE_WILD] = 0
            gs[G_CHASE] = -1
            gs[G_NEAR] = -1
            if gs[G_PHASE] == AFTER_DRAW:
                if _self_draw(rules, policies, bots, tab, ctx, ws, log) == END:
                    break
                kk = _choose_kong(rules, policies, bots, tab, ctx, ws, log)
                if kk >= 0:
                    if _make_kong(rules, policies, bots, tab, ctx, ws, log, kk) == END:
                        break
                    continue
            k = _choose_discard(rules, policies, bots, tab, ctx, ws, obs)
            _make_discard(rules, ctx, ws, tab, log, k)
            if k >= 0:
                r = _claim_win(rules, policies, bots, tab, ctx, ws, log)
                if r == GO:
                    r = _claim_pong(rules, policies, bots, tab, ctx, ws, log)
                if r == GO:
                    r = _claim_chow(rules, policies, bots, tab, ctx, ws, log)
                if r == END:
                    break
                if r == AGAIN:
                    continue
            if _draw(rules, tab, ctx, ws, log) == END:
                break
    _settle(rules, ctx, ws, tab, rec, final, log, obs)


@kernel(refcount=False)
def _deal_wall(rules, ctx, ws, seed, match, deal, preset):
    """Deal phase: clear the deal's state (``ctx`` but the dealer's three slots, the work
    arrays, the play's scalars ``gs``), seed its random streams and build the wall.
    """
    (wall, dead, hand, wslot, flw, melds, nmeld, disc, ndisc, visible, role, pay, delta, extra,
     scratch, states, fsc, osums, gs) = ws  # fmt: skip
    dealer = ctx[X_DEALER]
    streak = ctx[X_STREAK]
    dealer_wins = ctx[X_DEALER_WINS]
    for i in range(ctx.shape[0]):
        ctx[i] = 0
    ctx[X_DEALER] = dealer
    ctx[X_STREAK] = streak
    ctx[X_DEALER_WINS] = dealer_wins
    ctx[X_WINNER] = -1
    ctx[X_DISCARDER] = -1
    ctx[X_KONG_FROM] = -1
    ctx[X_ROBBED] = -1
    ctx[X_WILD0] = -1
    ctx[X_WILD1] = -1
    ctx[X_INDICATOR] = -1
    ctx[X_VALUE] = 0
    wst = states[ST_WALL : ST_WALL + 4]
    rng.seed_state(wst, seed, match, deal, rng.WALL)
    rng.seed_state(states[ST_BOTS : ST_BOTS + 4], seed, match, deal, rng.BOTS)
    # far[s] = 1: seat s's concealed hand is known to be two or more tiles from complete
    # (set when an efficiency bot discards, whose scores are 4 x distance; cleared when
    # the hand changes otherwise): its next draw cannot complete it, so no check is made
    far = _far(scratch)
    waitd = _waitd(scratch)
    wsc = _wsc(scratch)
    for s in range(4):
        far[s] = 0
        waitd[s] = -1
        wsc[s] = INF_KEY
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
    rng.shuffle(wst, wall, n)
    if preset.shape[0] == n:
        for i in range(n):
            wall[i] = preset[i]
    for i in range(n):
        dead[i] = False
    ptr = _ptr(scratch)
    ptr[0] = 0
    ptr[1] = n - 1
    ptr[2] = n
    for k in range(N_PHYS):
        role[k] = k if k < N_KINDS else ROLE_FLOWER
    if rules[R_HONOR_FLOWERS] == 1:
        for k in range(27, N_KINDS):
            role[k] = ROLE_FLOWER
    ctx[X_RESERVE] = rules[R_RESERVE]
    ctx[X_INDICATOR_POS] = -1
    hand[:, :] = 0
    wslot[:, :] = 0
    flw[:, :] = 0
    nmeld[:] = 0
    ndisc[:] = 0
    visible[:] = 0
    pay[:, :] = 0
    delta[:] = 0
    extra[:] = 0
    gs[:] = 0
    gs[G_CUR] = dealer
    gs[G_PHASE] = AFTER_DRAW
    gs[G_NO_CLAIMS] = 1
    gs[G_LAST_PHYS] = -1
    gs[G_WIN_TYPE] = WIN_NONE
    gs[G_WINNER] = -1
    gs[G_DISCARDER] = -1
    gs[G_WIN_KIND] = -1


@kernel(inline="always")
def _late_wilds(rules):
    """Whether the wild kinds are turned up after the deal and its 补花 (开金)."""
    mode = rules[R_WILD_MODE]
    return rules[R_INDICATOR] == 2 and (mode == 1 or mode == 2) and rules[R_WILD_KINDS] > 0


@kernel(refcount=False)
def _deal_wilds(rules, ctx, ws, log):
    """Deal phase: the wild kinds turned up before the deal (or fixed), and the horses and
    other tiles set aside.
    """
    (wall, dead, hand, wslot, flw, melds, nmeld, disc, ndisc, visible, role, pay, delta, extra,
     scratch, states, fsc, osums, gs) = ws  # fmt: skip
    wst = states[ST_WALL : ST_WALL + 4]
    ptr = _ptr(scratch)
    mode = rules[R_WILD_MODE]
    nw = rules[R_WILD_KINDS]
    late = _late_wilds(rules)
    if late:
        pass  # 开金 after the deal and 补花 (_deal_hands)
    elif mode == 1 or mode == 2:
        if rules[R_INDICATOR] == 1:
            k_pos = 2 + rng.below(wst, np.int64(6)) + rng.below(wst, np.int64(6))
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
    if not late:
        _ev(log, ctx, E_WILD, ctx[X_INDICATOR], ctx[X_WILD0], ctx[X_WILD1], 0)
    nh = _hooks.deal_setup(rules, ctx)
    ctx[X_NHORSE] = nh
    for i in range(nh):
        ctx[X_HORSE + i] = _aside(wall, dead, ptr, 1)


@kernel(refcount=False)
def _deal_hands(rules, ctx, ws, log):
    """Deal phase: the hands from the head of the wall, 补花, the late 开金 (a flower
    turned up goes to the dealer), and the dealt tiles in the log.
    """
    (wall, dead, hand, wslot, flw, melds, nmeld, disc, ndisc, visible, role, pay, delta, extra,
     scratch, states, fsc, osums, gs) = ws  # fmt: skip
    ptr = _ptr(scratch)
    players = rules[R_PLAYERS]
    dealer = ctx[X_DEALER]
    size = 3 * rules[R_SETS] + 1
    for j in range(players):
        s = _seat_after(dealer, j, players)
        take = size + (1 if s == dealer else 0)
        for _ in range(take):
            t = _pop(wall, dead, ptr, False)
            _add(role, s, t, hand, wslot, flw)
    if rules[R_FLOWER_REPLACE] == 1:
        _late_deal_flowers(
            rules, ctx, wall, dead, ptr, role, dealer, players, hand, wslot, flw,
            scratch[SC_NEED : SC_NEED + 4], log,
        )  # fmt: skip
    if _late_wilds(rules):
        mode = rules[R_WILD_MODE]
        nw = rules[R_WILD_KINDS]
        while True:
            pos = ptr[1]
            while dead[pos]:
                pos -= 1
            t = wall[pos]
            if role[t] != ROLE_FLOWER:
                break
            _pop(wall, dead, ptr, True)
            flw[dealer, t] += 1
            _got_flower(rules, ctx, flw, dealer, t, log, ptr, np.bool_(False))
        dead[pos] = True
        ptr[2] -= 1
        ctx[X_INDICATOR_POS] = pos
        ctx[X_INDICATOR] = t
        ctx[X_RESERVE] -= rules[R_RESERVE_INDICATOR]
        ctx[X_WILD0] = t if mode == 2 else _next_kind(t)
        if nw == 2:
            ctx[X_WILD1] = _next_kind(ctx[X_WILD0])
        for j in range(nw):
            g = ctx[X_WILD0 + j]
            role[g] = ROLE_WILD0 + j
            for s in range(players):
                wslot[s, j] += hand[s, g]
                hand[s, g] = 0
        for s in range(players):
            if wslot[s, 0] + wslot[s, 1] > ctx[X_DEAL_MAX_WILDS]:
                ctx[X_DEAL_MAX_WILDS] = wslot[s, 0] + wslot[s, 1]
        _ev(log, ctx, E_WILD, ctx[X_INDICATOR], ctx[X_WILD0], ctx[X_WILD1], 0)
    if log.shape[0] > 1:
        for s in range(players):
            for k in range(N_KINDS):
                if hand[s, k] > 0:
                    _ev(log, ctx, E_TILE, s, _phys_of(role, k), hand[s, k], 0)
            for j in range(2):
                if wslot[s, j] > 0:
                    _ev(log, ctx, E_TILE, s, ctx[X_WILD0 + j], wslot[s, j], 0)
    ctx[X_RUN_KIND] = -1


@kernel(refcount=False, inline="always")
def _opening_win(rules, ctx, ws, tab, log):
    """Deal phase: whether an opening win (:func:`_opening`) ends the deal at once."""
    (wall, dead, hand, wslot, flw, melds, nmeld, disc, ndisc, visible, role, pay, delta, extra,
     scratch, states, fsc, osums, gs) = ws  # fmt: skip
    s = _late_opening(
        rules, ctx, wall, hand, wslot, melds, nmeld, disc, ndisc, visible, role,
        rules[R_PLAYERS], tab, log,
    )  # fmt: skip
    if s < 0:
        return False
    gs[G_WINNER] = s
    gs[G_WIN_TYPE] = ctx[X_WIN_TYPE]
    gs[G_WIN_KIND] = -1
    if ctx[X_ROB_INDICATOR] == 1:
        gs[G_LAST_PHYS] = ctx[X_INDICATOR]
    return True


@kernel(inline="always")
def _win_now(gs, seat, win_type, win_kind):
    """The deal ends with ``seat``'s win of ``win_type`` on logical kind ``win_kind``."""
    gs[G_WINNER] = seat
    gs[G_WIN_TYPE] = win_type
    gs[G_WIN_KIND] = win_kind
    return END


@kernel
def _log_self_pass(rules, ctx, hand, cur, w, sets, melds, nmeld, tab, last_phys, role, gs, log,
                   why):  # fmt: skip
    """Replay log only: an E_OPTION row when the seat in turn passes a legal self-drawn
    win (``why``: a PASS_* reason). The deal's context is restored after the check.
    """
    if not _complete(rules, hand, cur, w, sets, tab):
        return
    backup = ctx.copy()
    ctx[X_WINNER] = cur
    ctx[X_WIN_TYPE] = WIN_KONG_DRAW if gs[G_KONG_DRAW] == 1 else WIN_SELF_DRAW
    legal = _hooks.win_legal(rules, ctx, hand[cur], w, sets, melds[cur], nmeld[cur], tab)
    for i in range(ctx.shape[0]):
        ctx[i] = backup[i]
    if legal:
        kind = role[last_phys] if last_phys >= 0 else -1
        _ev(log, ctx, E_OPTION, cur, OPT_PASS_SELF, kind, why)


@kernel(inline="always")
def _self_draw(rules, policies, bots, tab, ctx, ws, log):
    """Turn phase after a draw: an instant win, the 游金 choices (a 双游 / 三游 discards the
    drawn wild: ``gs[G_FORCE_WILD]``) and a self-drawn win, which a bot chasing 金雀 may
    pass (its discard in ``gs[G_CHASE]``). ``END`` on a win, else ``GO``.
    """
    (wall, dead, hand, wslot, flw, melds, nmeld, disc, ndisc, visible, role, pay, delta, extra,
     scratch, states, fsc, osums, gs) = ws  # fmt: skip
    cur = gs[G_CUR]
    w_cur = wslot[cur, 0] + wslot[cur, 1]
    sets_cur = rules[R_SETS] - nmeld[cur]
    pol = policies[cur]
    instant = rules[R_INSTANT_WILDS]
    ptr = _ptr(scratch)
    far = _far(scratch)
    last_phys = gs[G_LAST_PHYS]
    first = gs[G_NO_CLAIMS] == 1 and ctx[X_SEAT_DRAWS + cur] <= (0 if cur == ctx[X_DEALER] else 1)
    ctx[X_FIRST_TURN] = 1 if first else 0
    if (w_cur == 4 and _hooks.four_wild_win(rules)) or (instant > 0 and w_cur >= instant):
        return _win_now(gs, cur, WIN_INSTANT, -1)
    you = ctx[X_YOUJIN + cur]
    declare = True
    if rules[R_YOUJIN] == 1 and pol != 0:
        drew_wild = last_phys >= 0 and (
            role[last_phys] == ROLE_WILD0 or role[last_phys] == ROLE_WILD0 + 1
        )
        if you >= 1 and you < 3 and drew_wild:
            gs[G_FORCE_WILD] = 1  # 双游 / 三游: the drawn wild is discarded
            declare = False
        elif (
            you == 0
            and _discard_to_one_wild_short(hand, cur, w_cur, sets_cur, tab, np.int64(1)) >= 0
        ):
            declare = False  # 游金 rather than a plain win
    if not declare and log.shape[0] > 1:
        _late_log_self_pass(rules, ctx, hand, cur, w_cur, sets_cur, melds, nmeld, tab,
                            last_phys, role, gs, log, np.int64(PASS_YOUJIN))  # fmt: skip
    # a real tile drawn to a hand that waited two or more from complete cannot complete it
    # (the bound one less carries on to the hand after the discard)
    wd = _waitd(scratch)[cur]
    d = np.int64(-1)
    if declare and far[cur] == 0:
        if wd >= 2 and last_phys >= 0 and role[last_phys] < N_KINDS:
            gs[G_NEAR] = wd - 1
        else:
            d = _distance(hand[cur], w_cur, sets_cur, rules[R_SHAPES], tab)
            gs[G_NEAR] = d
    if d == 0:
        if _passes_for_jinque(
            bots[cur], pol, ptr[2] - ctx[X_RESERVE], hand[cur], w_cur, sets_cur, tab, visible,
            rules[R_PLAYERS],
        ):  # fmt: skip
            gs[G_CHASE] = _discard_to_one_wild_short(hand, cur, w_cur, sets_cur, tab, np.int64(2))
            if gs[G_CHASE] >= 0 and log.shape[0] > 1:
                _late_log_self_pass(rules, ctx, hand, cur, w_cur, sets_cur, melds, nmeld,
                                    tab, last_phys, role, gs, log,
                                    np.int64(PASS_JINQUE))  # fmt: skip
        if gs[G_CHASE] < 0:
            wt = WIN_KONG_DRAW if gs[G_KONG_DRAW] == 1 else WIN_SELF_DRAW
            ctx[X_WINNER] = cur
            ctx[X_WIN_TYPE] = wt
            if _hooks.win_legal(
                rules, ctx, hand[cur], w_cur, sets_cur, melds[cur], nmeld[cur], tab
            ):
                return _win_now(gs, cur, wt, role[last_phys] if last_phys >= 0 else -1)
            ctx[X_WINNER] = -1
    return GO


@kernel(inline="always")
def _choose_kong(rules, policies, bots, tab, ctx, ws, log):
    """Turn phase after a draw: the kind of the 暗杠 (four concealed) or 补杠 (adding to a
    pong) the seat in turn makes, or -1. Also leaves the seat's unseen counts and meld
    info in the scratch for its discard.
    """
    (wall, dead, hand, wslot, flw, melds, nmeld, disc, ndisc, visible, role, pay, delta, extra,
     scratch, states, fsc, osums, gs) = ws  # fmt: skip
    cur = gs[G_CUR]
    w_cur = wslot[cur, 0] + wslot[cur, 1]
    sets_cur = rules[R_SETS] - nmeld[cur]
    pol = policies[cur]
    bs = states[ST_BOTS : ST_BOTS + 4]
    unseen, minfo, htmp, score, sscr, sview = _bot_scratch(scratch)
    ptr = _ptr(scratch)
    if pol != 0:  # (the random policy reads neither)
        _unseen(hand, cur, visible, unseen)
        meld_info(melds, nmeld, cur, minfo)
    kong_scan = gs[G_FORCE_WILD] == 0 and ctx[X_YOUJIN + cur] == 0 and gs[G_CHASE] < 0
    live = ptr[2] - ctx[X_RESERVE]
    # the kinds a kong could be made of, as a bit set walked in kind order:
    # four held (暗杠) or a pong with its fourth tile held (补杠)
    kong_kinds = np.int64(0)
    if kong_scan:
        for k in range(N_KINDS):
            kong_kinds |= np.int64(hand[cur, k] == 4) << k
        for i in range(nmeld[cur]):
            k = melds[cur, i, 1]
            if melds[cur, i, 0] == M_PONG and hand[cur, k] >= 1:
                kong_kinds |= np.int64(1) << k
    while kong_kinds != 0:
        k = lowest_bit(kong_kinds)
        kong_kinds &= kong_kinds - 1
        is_an = hand[cur, k] == 4
        if rules[R_KONG_NEEDS_LIVE] == 1:
            if live <= rules[R_RESERVE_ANKONG if is_an else R_RESERVE_KONG]:
                continue
        if pol == 0:
            want = rng.below(bs, np.int64(2)) == 0
        elif pol == P_STRONG:
            for q in range(N_KINDS):
                htmp[q] = hand[cur, q]
            _late_strong_view(
                rules, ctx, cur, melds, nmeld, disc, ndisc, role, live, rules[R_PLAYERS], osums,
                sview,
            )  # fmt: skip
            want = _late_strong_kong(
                k, is_an, htmp, w_cur, sets_cur, rules[R_SHAPES], tab, bots[cur], unseen,
                minfo, osums, sview, sscr, fsc, bs[:0],
            )  # fmt: skip
        else:
            for q in range(N_KINDS):
                htmp[q] = hand[cur, q]
            want = _late_plain_kong(
                pol, k, is_an, htmp, w_cur, sets_cur, rules[R_SHAPES], tab, bots[cur], minfo,
                score,
            )  # fmt: skip
        _ev(log, ctx, E_OPTION, cur, OPT_ANKONG if is_an else OPT_ADDKONG, k, 1 if want else 0)
        if want:
            return k
    return -1


@kernel(refcount=False)
def _make_kong(rules, policies, bots, tab, ctx, ws, log, kk):
    """Turn phase: the seat in turn makes its kong of ``kk``; a 补杠 may be robbed (END).
    Then a replacement draw from the tail: ``AGAIN`` (a new turn after it), or ``END``
    when no live tile beyond the reserve is left.
    """
    (wall, dead, hand, wslot, flw, melds, nmeld, disc, ndisc, visible, role, pay, delta, extra,
     scratch, states, fsc, osums, gs) = ws  # fmt: skip
    cur = gs[G_CUR]
    players = rules[R_PLAYERS]
    ptr = _ptr(scratch)
    far = _far(scratch)
    ktype = M_ANKONG if hand[cur, kk] == 4 else M_ADDKONG
    if ktype == M_ADDKONG and rules[R_ROB_KONG] == 1 and not _youjin_active(ctx, players):
        robber = _discard_winner(
            rules, ctx, policies, bots, ptr[2] - ctx[X_RESERVE], hand, wslot, melds,
            nmeld, cur, kk, players, rules[R_SETS], tab, np.int64(WIN_ROB_KONG), visible, log,
            _waitd(scratch),
        )  # fmt: skip
        if robber >= 0:
            hand[robber, kk] += 1
            gs[G_DISCARDER] = cur
            gs[G_LAST_PHYS] = _phys_of(role, kk)
            ctx[X_ROBBED] = cur
            hand[cur, kk] -= 1
            _ev(log, ctx, E_KONG, cur, ktype, _phys_of(role, kk), 1)  # robbed
            return _win_now(gs, robber, WIN_ROB_KONG, kk)
    far[cur] = 0
    _waitd(scratch)[cur] = -1
    _wsc(scratch)[cur] = INF_KEY
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
    if ktype == M_ANKONG:
        ctx[X_ANKONGS] += 1
        ctx[X_RESERVE] += rules[R_RESERVE_ANKONG]
    else:
        ctx[X_MINGKONGS] += 1
        ctx[X_RESERVE] += rules[R_RESERVE_KONG]
    gs[G_NO_CLAIMS] = 0
    _hooks.on_kong(rules, ctx, pay, cur, ktype, cur, players)
    _ev(log, ctx, E_KONG, cur, ktype, _phys_of(role, kk), 0)
    if ptr[2] <= ctx[X_RESERVE]:
        return END
    ctx[X_KONG_FROM] = -1
    return AGAIN if _kong_draw(rules, ctx, ws, log, cur) else END


@kernel(refcount=False)
def _kong_draw(rules, ctx, ws, log, seat):
    """The replacement draw of ``seat``'s kong, from the tail (and 补花); False when no
    live tile beyond the reserve is left for a flower's replacement.
    """
    (wall, dead, hand, wslot, flw, melds, nmeld, disc, ndisc, visible, role, pay, delta, extra,
     scratch, states, fsc, osums, gs) = ws  # fmt: skip
    ptr = _ptr(scratch)
    t = _pop(wall, dead, ptr, True)
    ctx[X_SEAT_DRAWS + seat] += 1
    gs[G_TURNS] += 1
    _add(role, seat, t, hand, wslot, flw)
    gs[G_LAST_PHYS] = t
    gs[G_KONG_DRAW] = 1
    return _draw_flowers(rules, ctx, ws, log, seat, t, 1)


@kernel(inline="always")
def _draw_flowers(rules, ctx, ws, log, seat, t, from_tail):
    """Log ``seat``'s draw of ``t`` and replace it while it is a flower (补花); False when
    no live tile beyond the reserve is left for a replacement.
    """
    (wall, dead, hand, wslot, flw, melds, nmeld, disc, ndisc, visible, role, pay, delta, extra,
     scratch, states, fsc, osums, gs) = ws  # fmt: skip
    _ev(log, ctx, E_DRAW, seat, t, from_tail, 0)
    if rules[R_FLOWER_REPLACE] == 1 and role[t] == ROLE_FLOWER:
        t = _late_replace_flowers(
            rules, ctx, wall, dead, _ptr(scratch), role, seat, t, hand, wslot, flw, log
        )
        if t < 0:
            return False
        gs[G_LAST_PHYS] = t
    return True


@kernel(inline="always")
def _choose_discard(rules, policies, bots, tab, ctx, ws, obs):
    """Turn phase: the logical kind the seat in turn discards, or -1 for a wild (the 双游 /
    三游 wild, or a bot's wild discard). Observation rows of the danger before it.
    """
    (wall, dead, hand, wslot, flw, melds, nmeld, disc, ndisc, visible, role, pay, delta, extra,
     scratch, states, fsc, osums, gs) = ws  # fmt: skip
    cur = gs[G_CUR]
    players = rules[R_PLAYERS]
    w_cur = wslot[cur, 0] + wslot[cur, 1]
    sets_cur = rules[R_SETS] - nmeld[cur]
    pol = policies[cur]
    youjin = rules[R_YOUJIN] == 1
    force_wild = gs[G_FORCE_WILD] == 1
    bs = states[ST_BOTS : ST_BOTS + 4]
    unseen, minfo, htmp, score, sscr, sview = _bot_scratch(scratch)
    ptr = _ptr(scratch)
    far = _far(scratch)
    if gs[G_PHASE] != AFTER_DRAW and pol != 0:
        # (after a draw they were computed for the kong scan, and nothing changed since;
        # the random policy reads neither)
        _unseen(hand, cur, visible, unseen)
        meld_info(melds, nmeld, cur, minfo)
    if pol != 0:  # (the random policy reads the hand itself)
        for q in range(N_KINDS):
            htmp[q] = hand[cur, q]
    picked = -1
    scored = False  # discard_scores filled ``score`` for this hand
    if obs.shape[0] > 1 and pol != 0 and not force_wild:
        _late_observe_danger(
            rules, ctx, cur, hand, wslot, melds, nmeld, disc, ndisc, visible, role,
            ptr[2] - ctx[X_RESERVE], players, rules[R_SETS], tab, obs,
        )  # fmt: skip
    if force_wild:
        k = -1
    elif gs[G_CHASE] >= 0:
        k = gs[G_CHASE]  # 金雀 wait rather than a plain win
    elif pol == P_STRONG:
        live = ptr[2] - ctx[X_RESERVE]
        _late_strong_view(
            rules, ctx, cur, melds, nmeld, disc, ndisc, role, live, players, osums, sview
        )
        k, _ = _late_strong_best(
            htmp, w_cur, sets_cur, rules[R_SHAPES], tab, bots[cur], unseen, minfo, osums,
            sview, bs, sscr, fsc,
        )  # fmt: skip
        picked = k
        if youjin and ctx[X_YOUJIN + cur] == 0:
            q = _discard_to_one_wild_short(hand, cur, w_cur, sets_cur, tab, np.int64(1))
            if q >= 0:
                k = q
    elif pol == P_RANDOM:
        # inline, not a late call: passing the call's twelve arguments cost more than the
        # random pick itself; the seat holds 3 * sets + 2 tiles, wilds included (summing
        # the counts right after the draw stored one of them cost a twentieth of a deal)
        k = random_discard(
            hand[cur], 3 * sets_cur + 2 - w_cur, w_cur, bs, rules[R_WILD_DISCARD] > 0
        )
        picked = k
    else:
        k = _late_choose_discard(
            pol, htmp, w_cur, sets_cur, rules[R_SHAPES], tab, bots[cur], unseen, bs, minfo,
            rules[R_WILD_DISCARD] > 0, score,
        )  # fmt: skip
        picked = k
        scored = True
        if youjin and ctx[X_YOUJIN + cur] == 0:
            q = _discard_to_one_wild_short(hand, cur, w_cur, sets_cur, tab, np.int64(1))
            if q >= 0:
                k = q
    # the efficiency bot's own pick: score[k] is 4 x the distance after it
    far[cur] = 1 if pol == 1 and k >= 0 and k == picked and score[k] >= 8 else 0
    # the score of the hand the discard leaves, for the seat's claim checks
    _wsc(scratch)[cur] = score[k] if scored and k >= 0 else INF_KEY
    if obs.shape[0] > 1 and pol != 0 and k >= 0:
        _late_observe_hand(
            rules, ctx, cur, hand, wslot, melds, nmeld, unseen, k, ptr[2] - ctx[X_RESERVE],
            sets_cur, tab, obs,
        )  # fmt: skip
    return k


@kernel(refcount=False)
def _log_wait(rules, ctx, hand, cur, k, w, sets, tab, visible, scratch, log):
    """Replay log only: an E_OPTION row (OPT_WAIT) when the seat's fourteen tiles could
    discard to a wait with a winning tile still unseen: whether its discard of ``k`` keeps
    such a wait.
    """
    unseen, minfo, htmp, score, sscr, sview = _bot_scratch(scratch)
    sh = rules[R_SHAPES]
    for q in range(N_KINDS):
        htmp[q] = hand[cur, q]
    kept = False
    live = False
    for q in range(N_KINDS):
        if htmp[q] == 0:
            continue
        htmp[q] -= 1
        if _distance(htmp, w, sets, sh, tab) == 1:
            for r in range(N_KINDS):
                if 4 - htmp[r] - visible[r] > 0 and htmp[r] < 4:
                    htmp[r] += 1
                    won = _distance(htmp, w, sets, sh, tab) == 0
                    htmp[r] -= 1
                    if won:
                        live = True
                        if q == k:
                            kept = True
                        break
        htmp[q] += 1
    if live:
        _ev(log, ctx, E_OPTION, cur, OPT_WAIT, k, 1 if kept else 0)


@kernel(inline="always")
def _make_discard(rules, ctx, ws, tab, log, k):
    """Turn phase: the seat in turn discards logical kind ``k`` (-1: a wild, which may be
    fined, bar the seat from winning on discards, or advance its 游金); a discard that
    leaves the 游金 shape starts it. The discard is ``gs[G_K]``, ``gs[G_PHYS]``.
    """
    (wall, dead, hand, wslot, flw, melds, nmeld, disc, ndisc, visible, role, pay, delta, extra,
     scratch, states, fsc, osums, gs) = ws  # fmt: skip
    cur = gs[G_CUR]
    players = rules[R_PLAYERS]
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
        ctx[X_WILD_DISCARDS] += 1
        if ctx[X_YOUJIN + cur] > 0 and ctx[X_YOUJIN + cur] < 3:
            ctx[X_YOUJIN + cur] += 1
            _ev(log, ctx, E_YOUJIN, cur, ctx[X_YOUJIN + cur], 0, 0)
    else:
        w_cur = wslot[cur, 0] + wslot[cur, 1]
        sets_cur = rules[R_SETS] - nmeld[cur]
        if log.shape[0] > 1:
            _late_log_wait(rules, ctx, hand, cur, k, w_cur, sets_cur, tab, visible, scratch,
                           log)  # fmt: skip
        hand[cur, k] -= 1
        phys = _phys_of(role, k)
        visible[k] += 1
        if (
            rules[R_YOUJIN] == 1
            and ctx[X_YOUJIN + cur] == 0
            and _one_wild_short(hand[cur], w_cur, sets_cur, tab, np.int64(1))
        ):
            ctx[X_YOUJIN + cur] = 1
            _ev(log, ctx, E_YOUJIN, cur, 1, 0, 0)
    _waitd(scratch)[cur] = gs[G_NEAR] if gs[G_NEAR] >= 2 else -1
    disc[cur, ndisc[cur]] = phys
    ndisc[cur] += 1
    ctx[X_DISCARDS_TOTAL] += 1
    if phys == ctx[X_RUN_KIND] and gs[G_CLAIMED_SINCE] == 0:
        ctx[X_RUN_LEN] += 1
    else:
        ctx[X_RUN_KIND] = phys
        ctx[X_RUN_LEN] = 1
        ctx[X_RUN_START] = cur
    gs[G_CLAIMED_SINCE] = 0
    _hooks.on_discard(rules, ctx, pay, cur, phys, players)
    _ev(log, ctx, E_DISCARD, cur, phys, 0, 0)
    gs[G_KONG_DRAW] = 0
    gs[G_K] = k
    gs[G_PHYS] = phys


@kernel(inline="always")
def _claim_win(rules, policies, bots, tab, ctx, ws, log):
    """Claim phase: a win on the discard (``END``), else ``GO``."""
    (wall, dead, hand, wslot, flw, melds, nmeld, disc, ndisc, visible, role, pay, delta, extra,
     scratch, states, fsc, osums, gs) = ws  # fmt: skip
    cur = gs[G_CUR]
    k = gs[G_K]
    players = rules[R_PLAYERS]
    ptr = _ptr(scratch)
    ctx[X_FIRST_TURN] = 1 if (gs[G_NO_CLAIMS] == 1 and ctx[X_DISCARDS_TOTAL] == 1) else 0
    if rules[R_DISCARD_WIN] == 1 and not _youjin_active(ctx, players):
        winner = _discard_winner(
            rules, ctx, policies, bots, ptr[2] - ctx[X_RESERVE], hand, wslot, melds, nmeld,
            cur, k, players, rules[R_SETS], tab, np.int64(WIN_DISCARD), visible, log,
            _waitd(scratch),
        )  # fmt: skip
        if winner >= 0:
            hand[winner, k] += 1
            gs[G_DISCARDER] = cur
            gs[G_LAST_PHYS] = gs[G_PHYS]
            visible[k] -= 1
            ndisc[cur] -= 1
            return _win_now(gs, winner, WIN_DISCARD, k)
    return GO


@kernel(inline="always")
def _pong_choice(rules, policies, bots, tab, ctx, ws, s, k, kong_ok):
    """What seat ``s`` does with the discard ``k`` it holds twice or more: 0 pass, 1 碰,
    2 明杠 (``kong_ok``: it holds three and the wall allows a kong).
    """
    (wall, dead, hand, wslot, flw, melds, nmeld, disc, ndisc, visible, role, pay, delta, extra,
     scratch, states, fsc, osums, gs) = ws  # fmt: skip
    ws_ = wslot[s, 0] + wslot[s, 1]
    sets_s = rules[R_SETS] - nmeld[s]
    ps = policies[s]
    sh = rules[R_SHAPES]
    bs = states[ST_BOTS : ST_BOTS + 4]
    unseen, minfo, htmp, score, sscr, sview = _bot_scratch(scratch)
    ptr = _ptr(scratch)
    if ps == 0:
        return rng.below(bs, 3 if kong_ok else 2)  # 0 pass, 1 pong, 2 kong
    _unseen(hand, s, visible, unseen)
    meld_info(melds, nmeld, s, minfo)
    for q in range(N_KINDS):
        htmp[q] = hand[s, q]
    do = 0
    if ps == P_STRONG:
        _late_strong_view(
            rules, ctx, s, melds, nmeld, disc, ndisc, role, ptr[2] - ctx[X_RESERVE],
            rules[R_PLAYERS], osums, sview,
        )  # fmt: skip
        do = _late_strong_pong(
            k, kong_ok, htmp, ws_, sets_s, sh, tab, bots[s], unseen, minfo, osums, sview, sscr,
            fsc, bs[:0],
        )  # fmt: skip
    else:
        do = _late_plain_pong(
            ps, k, kong_ok, htmp, ws_, sets_s, sh, tab, bots[s], unseen, minfo, score,
            _wsc(scratch)[s], bs[:0],
        )  # fmt: skip
    return do


@kernel(inline="always")
def _claim_pong(rules, policies, bots, tab, ctx, ws, log):
    """Claim phase: 碰 or 明杠 of the discard by another seat (the first that holds two or
    more, not 游ing, decides); a 明杠 draws its replacement from the tail. ``AGAIN`` (the
    claimer's turn), ``END`` (no replacement left), else ``GO``.
    """
    (wall, dead, hand, wslot, flw, melds, nmeld, disc, ndisc, visible, role, pay, delta, extra,
     scratch, states, fsc, osums, gs) = ws  # fmt: skip
    cur = gs[G_CUR]
    k = gs[G_K]
    players = rules[R_PLAYERS]
    ptr = _ptr(scratch)
    far = _far(scratch)
    for j in range(1, players):
        s = _seat_after(cur, j, players)
        if hand[s, k] < 2 or ctx[X_YOUJIN + s] > 0:
            continue
        kong_ok = hand[s, k] == 3 and ptr[2] > ctx[X_RESERVE] + rules[R_RESERVE_KONG]
        do = _pong_choice(rules, policies, bots, tab, ctx, ws, s, k, kong_ok)
        _ev(log, ctx, E_OPTION, s, OPT_PONG, k, 1 if do > 0 else 0)
        if kong_ok:
            _ev(log, ctx, E_OPTION, s, OPT_MINGKONG, k, 1 if do == 2 else 0)
        if do == 0:
            return GO
        far[s] = 0
        _waitd(scratch)[s] = -1
        _wsc(scratch)[s] = INF_KEY
        ndisc[cur] -= 1
        m = nmeld[s]
        melds[s, m, 0] = M_PONG if do == 1 else M_KONG
        melds[s, m, 1] = k
        melds[s, m, 2] = cur
        nmeld[s] = m + 1
        hand[s, k] -= 2 if do == 1 else 3
        visible[k] += 2 if do == 1 else 3
        gs[G_NO_CLAIMS] = 0
        gs[G_CLAIMED_SINCE] = 1
        gs[G_CUR] = s
        _ev(log, ctx, E_CLAIM, s, melds[s, m, 0], gs[G_PHYS], cur)
        if do == 1:
            gs[G_PHASE] = AFTER_CLAIM
            return AGAIN
        ctx[X_KONGS] += 1
        ctx[X_MINGKONGS] += 1
        ctx[X_RESERVE] += rules[R_RESERVE_KONG]
        _hooks.on_kong(rules, ctx, pay, s, np.int64(M_KONG), cur, players)
        ctx[X_KONG_FROM] = cur
        gs[G_PHASE] = AFTER_DRAW
        return AGAIN if _kong_draw(rules, ctx, ws, log, s) else END
    return GO


@kernel(inline="always")
def _claim_chow(rules, policies, bots, tab, ctx, ws, log):
    """Claim phase: 吃 of the discard by the next seat (``AGAIN``: its turn), else ``GO``."""
    (wall, dead, hand, wslot, flw, melds, nmeld, disc, ndisc, visible, role, pay, delta, extra,
     scratch, states, fsc, osums, gs) = ws  # fmt: skip
    cur = gs[G_CUR]
    k = gs[G_K]
    players = rules[R_PLAYERS]
    s = _seat_after(cur, 1, players)
    if rules[R_CHOW] != 1 or k >= 27 or ctx[X_YOUJIN + s] != 0:
        return GO
    pos = k % 9
    n_opt = 0
    for lo in range(pos - 2, pos + 1):
        if lo >= 0 and lo <= 6 and _chow_ok(hand, s, k, lo):
            n_opt += 1
    if n_opt == 0:
        return GO
    ws_ = wslot[s, 0] + wslot[s, 1]
    sets_s = rules[R_SETS] - nmeld[s]
    ps = policies[s]
    bs = states[ST_BOTS : ST_BOTS + 4]
    unseen, minfo, htmp, score, sscr, sview = _bot_scratch(scratch)
    ptr = _ptr(scratch)
    far = _far(scratch)
    if ps != 0:  # (the random policy reads none of them)
        _unseen(hand, s, visible, unseen)
        meld_info(melds, nmeld, s, minfo)
        for q in range(N_KINDS):
            htmp[q] = hand[s, q]
    best_opt = -1
    if ps == 0:
        r = rng.below(bs, n_opt + 1)
        idx = 0
        for lo in range(pos - 2, pos + 1):
            if lo >= 0 and lo <= 6 and _chow_ok(hand, s, k, lo):
                idx += 1
                if idx == r:
                    best_opt = lo
    elif ps == P_STRONG:
        _late_strong_view(
            rules, ctx, s, melds, nmeld, disc, ndisc, role, ptr[2] - ctx[X_RESERVE], players,
            osums, sview,
        )  # fmt: skip
        sview[9] = 1 if ctx[X_CHOWS + 4 * s + cur] == 2 else 0
        best_opt = _late_strong_chow(
            k, htmp, ws_, sets_s, rules[R_SHAPES], tab, bots[s], unseen, minfo, osums, sview,
            sscr, fsc, bs[:0], hand, s, nmeld[s],
        )  # fmt: skip
    else:
        best_opt = _late_choose_chow(
            ps, htmp, ws_, sets_s, rules[R_SHAPES], bots[s], tab, unseen, minfo, score,
            scratch[SC_COPT : SC_COPT + 6], hand, s, k, nmeld[s], bs[:0], _wsc(scratch)[s],
        )  # fmt: skip
    _ev(log, ctx, E_OPTION, s, OPT_CHOW, k, 1 if best_opt >= 0 else 0)
    if best_opt < 0:
        return GO
    base = k - pos + best_opt
    for q in range(3):
        if base + q != k:
            hand[s, base + q] -= 1
            visible[base + q] += 1
    far[s] = 0
    _waitd(scratch)[s] = -1
    _wsc(scratch)[s] = INF_KEY
    ndisc[cur] -= 1
    m = nmeld[s]
    melds[s, m, 0] = M_CHOW
    melds[s, m, 1] = base
    melds[s, m, 2] = cur
    nmeld[s] = m + 1
    ctx[X_CHOWS + 4 * s + cur] += 1
    gs[G_NO_CLAIMS] = 0
    gs[G_CLAIMED_SINCE] = 1
    _ev(log, ctx, E_CLAIM, s, M_CHOW, _phys_of(role, base), cur)
    gs[G_CUR] = s
    gs[G_PHASE] = AFTER_CLAIM
    return AGAIN


@kernel(inline="always")
def _chow_ok(hand, s, k, lo):
    """Whether seat ``s`` holds the two other tiles of the 吃 ``lo..lo+2`` of ``k``."""
    pos = k % 9
    ok = True
    for q in range(3):
        kind = k - pos + lo + q
        if kind != k and hand[s, kind] == 0:
            ok = False
    return ok


@kernel(inline="always")
def _draw(rules, tab, ctx, ws, log):
    """Draw phase: the next seat draws from the head (and 补花); ``END`` when the wall is
    down to its reserve (a drawn deal) or reaches the last group (:func:`_last_group`).
    """
    (wall, dead, hand, wslot, flw, melds, nmeld, disc, ndisc, visible, role, pay, delta, extra,
     scratch, states, fsc, osums, gs) = ws  # fmt: skip
    ptr = _ptr(scratch)
    if ptr[2] <= ctx[X_RESERVE]:
        return END
    if rules[R_LAST_GROUP] > 0 and ptr[2] - ctx[X_RESERVE] <= rules[R_LAST_GROUP]:
        _late_last_group(rules, tab, ctx, ws, log)
        return END
    cur = _seat_after(gs[G_CUR], 1, rules[R_PLAYERS])
    gs[G_CUR] = cur
    t = _pop(wall, dead, ptr, False)
    ctx[X_SEAT_DRAWS + cur] += 1
    gs[G_TURNS] += 1
    _add(role, cur, t, hand, wslot, flw)
    gs[G_LAST_PHYS] = t
    ctx[X_KONG_FROM] = -1
    ctx[X_LOCK + cur] = 0
    gs[G_PHASE] = AFTER_DRAW
    return GO if _draw_flowers(rules, ctx, ws, log, cur, t, 0) else END


@kernel(refcount=False)
def _last_group(rules, tab, ctx, ws, log):
    """Draw phase, the last group (R_LAST_GROUP): draws in turn, no discards, flowers
    dead, wins automatic, until a win or the reserve.
    """
    (wall, dead, hand, wslot, flw, melds, nmeld, disc, ndisc, visible, role, pay, delta, extra,
     scratch, states, fsc, osums, gs) = ws  # fmt: skip
    ptr = _ptr(scratch)
    players = rules[R_PLAYERS]
    instant = rules[R_INSTANT_WILDS]
    ctx[X_LAST_GROUP] = 1
    ctx[X_FIRST_TURN] = 0
    cur = gs[G_CUR]
    while ptr[2] > ctx[X_RESERVE]:
        cur = _seat_after(cur, 1, players)
        gs[G_CUR] = cur
        t = _pop(wall, dead, ptr, False)
        ctx[X_SEAT_DRAWS + cur] += 1
        gs[G_TURNS] += 1
        _add(role, cur, t, hand, wslot, flw)
        _ev(log, ctx, E_DRAW, cur, t, 0, 0)
        if role[t] == ROLE_FLOWER:
            _ev(log, ctx, E_FLOWER, cur, t, 1, 0)  # dead: no replacement
            continue
        w_cur = wslot[cur, 0] + wslot[cur, 1]
        sets_cur = rules[R_SETS] - nmeld[cur]
        if instant > 0 and w_cur >= instant:
            gs[G_LAST_PHYS] = t
            _win_now(gs, cur, WIN_INSTANT, gs[G_WIN_KIND])
            return
        if _complete(rules, hand, cur, w_cur, sets_cur, tab):
            ctx[X_WINNER] = cur
            ctx[X_WIN_TYPE] = WIN_SELF_DRAW
            if _hooks.win_legal(
                rules, ctx, hand[cur], w_cur, sets_cur, melds[cur], nmeld[cur], tab
            ):
                gs[G_LAST_PHYS] = t
                _win_now(gs, cur, WIN_SELF_DRAW, role[t] if role[t] < N_KINDS else -1)
                return
            ctx[X_WINNER] = -1


@kernel(refcount=False, inline="always")
def _settle(rules, ctx, ws, tab, rec, final, log, obs):
    """Win and payment: the winner's patterns, the variant's settlement, the record row,
    the log's closing events and (tests) the final tile locations.
    """
    (wall, dead, hand, wslot, flw, melds, nmeld, disc, ndisc, visible, role, pay, delta, extra,
     scratch, states, fsc, osums, gs) = ws  # fmt: skip
    players = rules[R_PLAYERS]
    sets_full = rules[R_SETS]
    winner = gs[G_WINNER]
    win_type = gs[G_WIN_TYPE]
    discarder = gs[G_DISCARDER]
    ctx[X_TURNS] = gs[G_TURNS]
    ctx[X_WINNER] = winner
    ctx[X_WIN_TYPE] = win_type
    ctx[X_DISCARDER] = discarder
    ctx[X_WIN_KIND] = gs[G_WIN_KIND]
    ctx[X_WIN_PHYS] = gs[G_LAST_PHYS] if winner >= 0 else -1
    if win_type != WIN_KONG_DRAW:
        ctx[X_KONG_FROM] = -1
    bits = np.int64(0)
    w_win = 0
    _flower_summary(ctx, flw, players)
    if winner >= 0:
        w_win = wslot[winner, 0] + wslot[winner, 1]
        bits = _hooks.win_patterns(
            rules, ctx, hand[winner], w_win, sets_full - nmeld[winner], melds[winner],
            nmeld[winner], tab,
        )  # fmt: skip
        _ev(log, ctx, E_WIN, winner, win_type, ctx[X_WIN_PHYS], discarder)
    else:
        _ev(log, ctx, E_DRAWN_GAME, 0, 0, 0, 0)
    value = _hooks.settle(rules, ctx, pay, bits, players, delta, extra)
    if obs.shape[0] > 1:
        _late_observe_outcome(obs, winner, bits)
    for i in range(ctx[X_NHORSE]):
        _ev(log, ctx, E_HORSE, ctx[X_HORSE + i], 0, 0, 0)
    for s in range(players):
        _ev(log, ctx, E_PAY, s, delta[s], 0, 0)
    rec[C_DEALER] = ctx[X_DEALER]
    rec[C_STREAK] = ctx[X_STREAK]
    rec[C_WINNER] = winner
    rec[C_WIN_TYPE] = win_type
    rec[C_DISCARDER] = discarder
    rec[C_TURNS] = gs[G_TURNS]
    rec[C_WILDS] = w_win
    rec[C_VALUE] = value
    for s in range(4):
        rec[C_DELTA + s] = delta[s] if s < players else 0
    rec[C_PAT_LO] = np.int32(bits & 0x7FFFFFFF)
    rec[C_PAT_HI] = np.int32((bits >> 31) & 0x7FFFFFFF)
    for i in range(MAX_EXTRA):
        rec[C_EXTRA + i] = extra[i]
    if final.shape[0] == FINAL_ZONES:
        _late_final_state(
            ctx, wall, dead, _ptr(scratch), hand, wslot, flw, melds, nmeld, disc, ndisc, role,
            players, final,
        )  # fmt: skip
        if winner >= 0:
            for k in range(N_KINDS):
                final[11, k] = hand[winner, k]
            final[11, 34] = w_win
            final[11, 35] = sets_full - nmeld[winner]


@kernel(refcount=False)
def _phys_of(role, k):
    """The physical kind that plays as logical kind ``k`` this deal."""
    if role[k] == k:
        return k
    for p in range(N_KINDS):
        if role[p] == k:
            return p
    return k


@kernel(inline="always")
def _chow_fits(hand, s, k, pos, lo):
    """Whether seat ``s`` holds the two other tiles of the chow of kind ``k`` (rank ``pos``
    in its suit) that starts at rank ``lo`` (0..6).
    """
    if lo < 0 or lo > 6:
        return False
    for q in range(3):
        kind = k - pos + lo + q
        if kind != k and hand[s, kind] == 0:
            return False
    return True


@kernel(refcount=False)
def _chow_apply(htmp, minfo, k, lo, m0, nm, sign):
    """Take (sign -1) or give back (+1) the two hand tiles of the 吃 ``lo..lo+2`` of ``k``.

    Taking also sets the meld info of the hand after the 吃; the caller restores it.
    """
    base = k - k % 9 + lo
    for q in range(3):
        if base + q != k:
            htmp[base + q] += sign
    if sign < 0:
        minfo[0] = m0 | (1 << (k // 9))
        minfo[1] = 0
        minfo[2] = nm + 1


@kernel(refcount=False)
def _choose_chow(
    ps, htmp, w, sets, sh, bot, tab, unseen, minfo, score, copt, hand, s, k, nm, no_rng, kept
):
    """The 吃 a bot of policy ``ps`` takes of the discard ``k`` (its low rank), or -1.

    The first option whose hand after it (and its discard) keys lower than the hand now
    (keys ``score*1000 - ukeire``, see _bots): scores first, the ukeire only to break a
    tie, which decides the same as comparing full keys.
    copt : int64 (6,) scratch: the options' low ranks and scores.
    no_rng : an empty uint64 array (keys need no random tie-break).
    kept : the hand's score as its discard found it (``_wsc``), INF_KEY if not known.
    """
    pos = k % 9
    m0 = minfo[0]
    m1 = minfo[1]
    now_sc = _waiting_score(ps, htmp, w, sets, sh, tab, bot, minfo, kept)
    n = 0
    best_sc = INF_KEY
    for lo in range(pos - 2, pos + 1):
        if not _chow_fits(hand, s, k, pos, lo):
            continue
        _chow_apply(htmp, minfo, k, lo, m0, nm, np.int64(-1))
        sc = hand_sc(ps, htmp, w, sets - 1, sh, tab, bot, minfo, score)
        _chow_apply(htmp, minfo, k, lo, m0, nm, np.int64(1))
        copt[n] = lo
        copt[3 + n] = sc
        n += 1
        if sc < best_sc:
            best_sc = sc
    minfo[0] = m0
    minfo[1] = m1
    minfo[2] = nm
    if best_sc > now_sc:
        return -1
    n_best = 0
    for i in range(n):
        if copt[3 + i] == best_sc:
            n_best += 1
    if best_sc < now_sc and n_best == 1:
        for i in range(n):
            if copt[3 + i] == best_sc:
                return copt[i]
    best = INF_KEY
    if best_sc == now_sc:
        best = now_sc * 1000 - waiting_ukeire(htmp, w, sets, sh, tab, unseen, score)
    choice = -1
    for i in range(n):
        if copt[3 + i] != best_sc:
            continue
        lo = copt[i]
        _chow_apply(htmp, minfo, k, lo, m0, nm, np.int64(-1))
        sc = hand_sc(ps, htmp, w, sets - 1, sh, tab, bot, minfo, score)
        key = hand_score(htmp, w, sets - 1, sh, tab, unseen, score, sc, no_rng)
        _chow_apply(htmp, minfo, k, lo, m0, nm, np.int64(1))
        if key < best:
            best = key
            choice = lo
    minfo[0] = m0
    minfo[1] = m1
    minfo[2] = nm
    return choice


@kernel(refcount=False)
def _pong_index(melds, nmeld, seat, k):
    for i in range(nmeld[seat]):
        if melds[seat, i, 0] == M_PONG and melds[seat, i, 1] == k:
            return i
    return -1


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
        elif dead[pos] and wall[pos] >= 0:
            final[10, wall[pos]] += 1


@kernel
def workspace(n_tiles):
    """The work arrays of :func:`play_deal`, zeroed: ``(wall, dead, hand, wslot, flw,
    melds, nmeld, disc, ndisc, visible, role, pay, delta, extra, scratch, states,
    fscratch, osums, gs)`` (``states``: the wall's and the bots' random streams; ``fscratch``
    float64 scratch, ``osums`` the opponent summaries of the strong policy and ``gs`` the
    play's scalars, slots ``G_*``).
    """
    return (
        np.full(n_tiles, -1, np.int64),
        np.zeros(n_tiles, np.bool_),
        np.zeros((4, N_KINDS), np.int64),
        np.zeros((4, 2), np.int64),
        np.zeros((4, N_PHYS), np.int64),
        np.zeros((4, 8, 3), np.int64),
        np.zeros(4, np.int64),
        np.zeros((4, 160), np.int64),
        np.zeros(4, np.int64),
        np.zeros(N_KINDS, np.int64),
        np.zeros(N_PHYS, np.int64),
        np.zeros((4, 4), np.int64),
        np.zeros(4, np.int64),
        np.zeros(MAX_EXTRA, np.int64),
        np.zeros(N_SCR, np.int64),
        np.zeros(N_STATES, np.uint64),
        np.zeros(N_FSC, np.float64),
        np.zeros((4, N_OSUM), np.int64),
        np.zeros(N_G, np.int64),
    )


# so are the rules' rarer phases: the 吃 decision, the opening wins (福州), 补花 and the
# last group (福州). A variant whose rules never reach one does not compile it (推倒胡,
# the first run of the README, has none of them): :func:`_late_by_rules`.
_late_choose_chow = _hooks.late(_choose_chow, types.int64)
_late_opening = _hooks.late(_opening, types.int64)
_late_deal_flowers = _hooks.late(_deal_flowers, types.none)
_late_replace_flowers = _hooks.late(_replace_flowers, types.int64)
_late_last_group = _hooks.late(_last_group, types.none)
# and the final tile locations, which only the tests and replays ask for
_late_final_state = _hooks.late(_final_state, types.none)
# and the replay log's pass and wait events, which only a replay asks for
_late_log_self_pass = _hooks.late(_log_self_pass, types.none)
_late_log_wait = _hooks.late(_log_wait, types.none)
_LOG_LATE = (_log_self_pass, _log_wait)

# The deal is called late too (engine.jit.late): compiled once in a library of its own, not
# linked into every entry kernel and optimised again in each (a tenth of a cold start).
_late_play_deal = _hooks.late(play_deal, types.none)


def _late_by_rules(rules) -> tuple:
    """The rules' late phases a deal under ``rules`` can reach: each is called only
    behind the same test of its rule (吃 R_CHOW, the opening wins R_OPENING, 补花
    R_FLOWER_REPLACE, the last group R_LAST_GROUP).
    """
    return (
        ((_choose_chow,) if rules[R_CHOW] == 1 else ())
        + ((_opening,) if rules[R_OPENING] == 1 else ())
        + ((_deal_flowers, _replace_flowers) if rules[R_FLOWER_REPLACE] == 1 else ())
        + ((_last_group,) if rules[R_LAST_GROUP] > 0 else ())
    )


def _final_zones(final) -> bool:
    """Whether ``final`` (one deal's, or a match's by deal) has room for the final tile
    locations: the deal writes them only then (:func:`_settle`).
    """
    return final.ndim >= 2 and final.shape[-2] == FINAL_ZONES


def _late_in_deal(args):
    """The late kernels a deal played with these arguments (by name) can reach: its
    rules' phases (:func:`_late_by_rules`), the final tile locations if ``final`` has
    room for them, the replay log's events if ``log`` has room for them, the strong
    policy's if a seat plays it (its 吃 where the rules have 吃), the efficiency and value
    policies' (:data:`_PLAIN_LATE`; the random policy's decisions are inline) if a seat
    plays one, the observations' if ``obs`` has room for rows.
    """
    obs = args.get("obs")
    log = args.get("log")
    strong = P_STRONG in args["policies"]
    final = args.get("final", args.get("final_out"))  # play_preset's, play_match's
    return (
        _late_by_rules(args["rules"])
        + ((_final_state,) if final is not None and _final_zones(final) else ())
        + (_LOG_LATE if log is not None and log.shape[0] > 1 else ())
        + (_STRONG_LATE if strong else ())
        + ((_strong_chow,) if strong and args["rules"][R_CHOW] == 1 else ())
        + (_PLAIN_LATE if any(p != P_STRONG and p != P_RANDOM for p in args["policies"]) else ())
        + (_OBSERVE_LATE if obs is not None and obs.shape[0] > 1 else ())
    )


def _late_needed(args):
    """:func:`_late_in_deal` after the deal itself (the matches call it late; callers are
    bound before their late callees).
    """
    return (play_deal,) + _late_in_deal(args)


@kernel(inline="always")
def _play_match(
    rules, policies, bots, seed, match, n_deals, tab, rec_out, final_out, log, log_deal, obs
):  # fmt: skip
    """Play the first ``n_deals`` deals of match ``match``; rows go to ``rec_out``.

    final_out : int16 (n_deals, FINAL_ZONES, N_PHYS) to receive final tile locations, or
        an array of another first dimension to skip that.
    log, log_deal : the replay log (int32 (MAX_EVENTS, 5)) filled for deal ``log_deal``.
    """
    _play_match_in(
        rules, policies, bots, seed, match, n_deals, tab, rec_out, final_out, log, log_deal, obs,
        _match_arrays(rules, policies, bots),
    )  # fmt: skip


@kernel(inline="always")
def _match_arrays(rules, policies, bots):
    """What a match plays in, reused from match to match (each deal clears what it uses):
    ``(ctx, ws, ms, no_final, no_log, no_preset, pols, brows)``, the deal's context and
    work arrays, the match's random stream, the empty final / log / preset arrays, and
    the seats' policies and parameter rows as seated by dealer.
    """
    return (
        np.zeros(N_CTX, np.int64),
        workspace(rules[R_TILESET]),
        np.empty(4, np.uint64),
        np.zeros((1, 1), np.int16),
        np.zeros((1, 5), np.int32),
        np.zeros(0, np.int64),
        policies.copy(),
        bots.copy(),
    )


@kernel(inline="always")
def _play_match_in(
    rules, policies, bots, seed, match, n_deals, tab, rec_out, final_out, log, log_deal, obs, arrs
):  # fmt: skip
    """:func:`_play_match` in the arrays ``arrs`` of :func:`_match_arrays`."""
    ctx, ws, ms, no_final, no_log, no_preset, pols, brows = arrs
    players = rules[R_PLAYERS]
    rng.seed_state(ms, seed, match, np.int64(0), rng.MATCH)
    dealer = rng.below(ms, players)
    streak = 0
    wins = 0
    by_dealer = rules[R_BY_DEALER] == 1
    if not by_dealer:
        # element by element: an array slice assignment compiles numba's shape-mismatch
        # message (string formatting), a second or two of every cold start
        for s in range(pols.shape[0]):
            pols[s] = policies[s]
            for j in range(brows.shape[1]):
                brows[s, j] = bots[s, j]
    for d in range(n_deals):
        ctx[X_DEALER] = dealer
        ctx[X_STREAK] = streak
        ctx[X_DEALER_WINS] = wins
        fin = final_out[d] if final_out.shape[0] == n_deals else no_final
        lg = log if d == log_deal else no_log
        if by_dealer:
            seat_by_dealer(policies, bots, dealer, players, pols, brows)
        _late_play_deal(
            rules, pols, brows, seed, match, d, tab, ctx, ws, rec_out[d], fin, lg, no_preset,
            obs,
        )  # fmt: skip
        winner = ctx[X_WINNER]
        if winner == dealer:
            streak += 1
            wins += 1
        elif winner >= 0:
            dealer = winner if rules[R_ROT_WIN] == 0 else _seat_after(dealer, 1, players)
            streak = 0
            wins = 0
        else:
            if rules[R_ROT_DRAW] == 0:
                streak += 1
                wins += rules[R_DRAW_ADDS_WINS]
            else:
                dealer = _seat_after(dealer, 1, players)
                streak = 0
                wins = 0


@kernel
def play_preset(rules, policies, bots, wall, dealer, wins, tab, rec, final, log, obs):
    """Play one deal on the given wall (scripted tests); returns the ctx array.

    wall : int64 (R_TILESET,) physical kinds, index 0 the head. dealer, wins : the
    dealer seat and his consecutive wins before the deal (连庄数). rec, final, log : as
    :func:`play_deal`.
    """
    ctx = np.zeros(N_CTX, np.int64)
    ctx[X_DEALER] = dealer
    ctx[X_STREAK] = wins
    ctx[X_DEALER_WINS] = wins
    ws = workspace(rules[R_TILESET])
    play_deal(rules, policies, bots, np.int64(0), np.int64(0), np.int64(0), tab, ctx, ws, rec,
              final, log, wall, obs)  # fmt: skip
    return ctx


@parallel_kernel
def play_matches(
    rules, policies, bots, seed, match_lo, n_matches, match_len, n_last, tab, rec_out
):  # fmt: skip
    """Play matches ``match_lo .. match_lo + n_matches - 1`` in parallel.

    Each match has ``match_len`` deals except the last, which has ``n_last``; rows are
    written to ``rec_out`` at ``(m - match_lo) * match_len``.
    """
    no_final = np.zeros((0, 1, 1), np.int16)
    no_log = np.zeros((1, 5), np.int32)
    no_obs = np.zeros((1, 1), np.int64)
    # the matches in a few runs, each run's arrays made once (the serial twin, which the
    # runs call from threads of their own, then allocates them RUNS times a call)
    n_runs = min(n_matches, RUNS)
    for r in numba.prange(n_runs):
        arrs = _match_arrays(rules, policies, bots)
        for i in range(r * n_matches // n_runs, (r + 1) * n_matches // n_runs):
            n = match_len if i < n_matches - 1 else n_last
            lo = i * match_len
            _play_match_in(
                rules, policies, bots, seed, match_lo + i, n, tab, rec_out[lo : lo + n],
                no_final, no_log, -1, no_obs, arrs,
            )  # fmt: skip


@kernel
def observe_matches(rules, policies, bots, seed, match_lo, n_matches, match_len, tab, rec_out, obs):
    """Play matches ``match_lo ..`` one after another, writing observation rows to ``obs``
    (engine.play.mahjong.observe; rows ``(m - match_lo) * match_len`` of ``rec_out``).
    """
    no_final = np.zeros((0, 1, 1), np.int16)
    no_log = np.zeros((1, 5), np.int32)
    for i in range(n_matches):
        lo = i * match_len
        _play_match(
            rules, policies, bots, seed, match_lo + i, match_len, tab,
            rec_out[lo : lo + match_len], no_final, no_log, -1, obs,
        )  # fmt: skip


# the entry kernels bind their variant's hooks before each call (engine.play.mahjong.hooks)
play_preset = _hooks.binding(play_preset, _late_in_deal)  # calls the deal directly
play_matches = _hooks.binding(play_matches, _late_needed)
observe_matches = _hooks.binding(observe_matches, _late_needed)
play_match = _hooks.binding(_play_match, _late_needed)
