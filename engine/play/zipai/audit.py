"""字牌 decision audit: what each seat did where the rules left it a choice.

:func:`audit_zipai` plays deals as ``mjlab simulate`` does (same seed, same matches), logs
every deal's events (the kernel's replay log, as :mod:`engine.play.zipai.replay`),
follows the cards through the log (hands, table groups, what each seat can see) and
counts, summed over the seats (and per policy when the table mixes policies):

``chi_made`` / ``chi_declined``
    吃 taken, and 吃 passed where one was legal (the seat was offered it: not barred by
    过张 or 冲明跑, with a legal option); ``chi_zero_huxi`` the 吃 taken whose groups
    bring no 胡息.
``peng_made`` / ``peng_declined``
    碰 taken and passed where legal.
``pair_spent_zero_huxi_chi``
    吃 whose groups bring no 胡息 and use a card of a pair the seat held (a pair that
    could still become a 碰, 啸 or 跑 of 胡息).
``win_passed``
    Legal wins not declared (rule 18 decides which may be passed), split into
    ``win_passed_discard`` (another player's discard), ``win_passed_flip`` (a card
    another player turned up) and ``win_passed_self_draw`` (the seat's own card).
``wait_broken_live``
    Discards after which the seat's hand wins on no live card (a card or 王 it cannot
    see, which may still come) when another discard would have kept such a wait.
``deal_in`` / ``deal_in_visible``
    Discards won on (包赔); ``deal_in_visible`` those fed to a winner who was visibly
    close: at least 3 table groups, or table 胡息 the others can see (a face-down 啸 as
    3, a 倾 as 9) of at least the minimum 胡息.
``deals``, ``decisions``
    Deals audited; decisions: discards, offered optional claims and optional wins
    (declared or passed).

A key is left out where the rules make the event impossible: no ``win_passed*`` under
``must_win=any`` (every win is forced), no ``win_passed_discard`` under
``must_win=discard`` (a seat without 王 must win on a discard, a 王 holder never may) and
no count of 王 discarded ever (a 王 is never discarded, RULEBOOK §4.4 rule 14: the engine
offers no such move).
"""

from __future__ import annotations

from collections import Counter

import numpy as np

from engine import abi
from engine.play.zipai.hooks import HOOK_TABLE
from engine.play.zipai.testing import DRIVER
from engine.zipai import layout as Z
from engine.zipai.huxi import (
    DAZIDA,
    ERQISHI,
    JU,
    PAO,
    PENG,
    QING,
    WANG,
    XIAO,
    YIERSAN,
    _wang_values_x,
    _workspace,
    packed_values,
)

__all__ = ["audit_zipai", "audit_events", "KEYS"]

KEYS = (
    "deals",
    "decisions",
    "chi_made",
    "chi_declined",
    "chi_zero_huxi",
    "peng_made",
    "peng_declined",
    "pair_spent_zero_huxi_chi",
    "win_passed",
    "win_passed_discard",
    "win_passed_flip",
    "win_passed_self_draw",
    "wait_broken_live",
    "deal_in",
    "deal_in_visible",
)
"""Every key :func:`audit_zipai` may return (those the rules make impossible are left out)."""

VISIBLE_GROUPS = 3
"""Table groups that make an opponent visibly close (at most two 门子 left in his hand)."""


def _chi_code(kinds) -> tuple[int, int]:
    """``(group code, size)`` of a 吃 group of three kinds (句, 一二三, 二七十, 大小搭)."""
    a, b, c = sorted(kinds)
    if a // 10 == c // 10:
        size, r = a // 10, (a % 10, b % 10, c % 10)
        if r == (1, 6, 9):
            return ERQISHI, size
        return (YIERSAN if r[0] == 0 else JU), size
    pair = a if a == b else c
    return DAZIDA, pair // 10


class _Deal:
    """The state of one deal as the event log tells it (hands, tables, what is seen)."""

    def __init__(self, packed, values, seats, kings):
        self.packed = packed
        self.values = values
        self.seats = seats
        self.kings = kings
        self.min_huxi = int(packed[Z.Z_MIN_HUXI])
        self.hand = np.zeros((4, 21), np.int64)
        self.tab = [[] for _ in range(4)]  # [type, kind, 胡息] per group
        self.alike = [{} for _ in range(4)]
        self.seen = np.zeros(21, np.int64)
        self.hidden = np.zeros((4, 21), np.int64)
        self.wshown = np.zeros(4, np.int64)
        self.wvx0 = _wang_values_x(values, -1)
        self.can_win = HOOK_TABLE.variant_kernel("can_win", packed[Z.Z_VARIANT])
        self.ws = _workspace()
        self.best2 = np.zeros((5, 5), np.int64)

    def lay(self, s, typ, kind, hx, cards, shown):
        """A table group of ``cards`` (kinds), the first ``shown`` of them shown."""
        if typ != Z.T_CHI:
            self.alike[s][kind] = len(self.tab[s])
        self.tab[s].append([typ, kind, hx])
        for i, q in enumerate(cards):
            if i < shown:
                self.seen[q] += 1
            else:
                self.hidden[s, q] += 1

    def upgrade(self, s, kind, typ):
        g = self.tab[s][self.alike[s][kind]]
        size = kind // 10
        g[0] = typ
        g[2] = int(self.values[QING if typ == Z.T_QING else PAO, size])
        if typ == Z.T_QING:
            self.hidden[s, kind] += 1
        else:
            self.seen[kind] += 1 + self.hidden[s, kind]
            self.hidden[s, kind] = 0

    def table_huxi(self, s) -> int:
        return sum(g[2] for g in self.tab[s])

    def known_huxi(self, s) -> int:
        """The 胡息 of seat ``s``'s table that the others can see (a 啸 3, a 倾 9)."""
        out = 0
        for typ, _, hx in self.tab[s]:
            out += 3 if typ == Z.T_XIAO else 9 if typ == Z.T_QING else hx
        return out

    def up(self, s, kind) -> int:
        i = self.alike[s].get(kind)
        return 0 if i is None else self.tab[s][i][0]

    def live_wait(self, s, h, out_card) -> bool:
        """Whether seat ``s`` with concealed ``h`` wins on some card it cannot see (one
        copy of ``out_card`` just discarded, so seen).
        """
        ntab = len(self.tab[s])
        th = self.table_huxi(s)
        shown_w = sum(int(self.wshown[q]) for q in range(self.seats) if q != s)
        for x in range(21):
            if x == WANG:
                unseen = self.kings - h[WANG] - shown_w
            else:
                unseen = 4 - h[x] - self.seen[x] - self.hidden[s, x] - (x == out_card)
            if unseen <= 0:
                continue
            hows = (Z.HOW_SELF,) if h[WANG] > 0 or x == WANG else _HOWS
            for how in hows:
                if self.can_win(self.packed, self.values, self.wvx0, h, h[WANG], ntab, th, x, how,
                            self.up(s, x), self.ws, self.best2):  # fmt: skip
                    return True
        return False


def _walk(events, st: _Deal, names, must_win, counts: dict[str, Counter]) -> None:
    """Count one deal's decisions into ``counts[policy]`` (module docstring)."""
    hand = st.hand
    flight = None  # (card, owner, is_flip)
    n = len(events)
    i = 0
    while i < n:
        code, a, b, c, d = (int(x) for x in events[i])
        i += 1
        if code == Z.EV_DEAL:
            hand[a, b] += c
        elif code == Z.EV_QING:
            size = b // 10
            if c == 2:
                st.upgrade(a, b, Z.T_QING)
            else:
                hand[a, b] -= 4 if c == 0 else 3
                st.lay(a, Z.T_QING, b, int(st.values[QING, size]), [b] * 4, 0)
            flight = None
        elif code == Z.EV_FLIP:
            flight = (b, a, True)
            if b == WANG:
                j = i
                while j < n and events[j][0] == Z.EV_DECLINE:
                    j += 1
                if j >= n or events[j][0] != Z.EV_WIN:
                    # a 王 turned up goes into the hand, shown (after any passed win on it)
                    while i < j:
                        _walk_decline(events[i], flight, names, counts)
                        i += 1
                    hand[a, WANG] += 1
                    st.wshown[a] += 1
                    flight = None
        elif code == Z.EV_XIAO:
            hand[a, b] -= 2
            st.lay(a, Z.T_CHOUXIAO if c else Z.T_XIAO, b, int(st.values[XIAO, b // 10]),
                   [b] * 3, 1 if c else 0)  # fmt: skip
            flight = None
        elif code == Z.EV_PAO:
            if d == 0:
                hand[a, b] -= 3
                st.lay(a, Z.T_PAO, b, int(st.values[PAO, b // 10]), [b] * 4, 4)
            else:
                st.upgrade(a, b, Z.T_PAO)
            flight = None
        elif code == Z.EV_PENG:
            counts[names[a]]["peng_made"] += 1
            counts[names[a]]["decisions"] += 1
            hand[a, b] -= 2
            st.lay(a, Z.T_PENG, b, int(st.values[PENG, b // 10]), [b] * 3, 3)
            flight = None
        elif code == Z.EV_PASS:
            counts[names[a]]["chi_declined" if c == 1 else "peng_declined"] += 1
            counts[names[a]]["decisions"] += 1
        elif code == Z.EV_CHI:
            groups = [events[i + g][2:5].tolist() for g in range(d)]
            i += d
            used = np.zeros(21, np.int64)
            hx = 0
            for kinds in groups:
                for q in kinds:
                    used[q] += 1
                gc, size = _chi_code(kinds)
                hx += int(st.values[gc, size])
            used[b] -= 1  # the claimed card
            cnt = counts[names[a]]
            cnt["chi_made"] += 1
            cnt["decisions"] += 1
            if hx == 0:
                cnt["chi_zero_huxi"] += 1
                if ((hand[a, :20] == 2) & (used[:20] > 0)).any():
                    cnt["pair_spent_zero_huxi_chi"] += 1
            hand[a] -= used
            for kinds in groups:
                gc, size = _chi_code(kinds)
                st.lay(a, Z.T_CHI, -1, int(st.values[gc, size]), kinds, 3)
            flight = None
        elif code == Z.EV_DISCARD:
            cnt = counts[names[a]]
            cnt["decisions"] += 1
            h = hand[a].copy()
            free = [k for k in range(20) if h[k] in (1, 2)]
            if len(free) > 1:
                keeps = {}
                for k in free:
                    h[k] -= 1
                    keeps[k] = st.live_wait(a, h, k)
                    h[k] += 1
                if not keeps[b] and any(keeps.values()):
                    cnt["wait_broken_live"] += 1
            hand[a, b] -= 1
            flight = (b, a, False)
        elif code == Z.EV_DEAD:
            st.seen[a] += 1
            flight = None
        elif code == Z.EV_DECLINE:
            _walk_decline(events[i - 1], flight, names, counts)
        elif code == Z.EV_WIN:
            if flight is None or b == abi.WIN_INSTANT:
                break
            card, owner, is_flip = flight
            forced = must_win == 1 or (must_win == 0 and not is_flip and hand[a, WANG] == 0)
            if not forced:
                counts[names[a]]["decisions"] += 1
            if not is_flip and b == abi.WIN_DISCARD:
                cnt = counts[names[owner]]
                cnt["deal_in"] += 1
                if len(st.tab[a]) >= VISIBLE_GROUPS or st.known_huxi(a) >= st.min_huxi:
                    cnt["deal_in_visible"] += 1
            break


def _walk_decline(ev, flight, names, counts) -> None:
    """One passed win (EV_DECLINE) with the card under claim ``flight``."""
    seat = int(ev[1])
    cnt = counts[names[seat]]
    cnt["win_passed"] += 1
    cnt["decisions"] += 1
    if flight is None or not flight[2]:
        cnt["win_passed_discard"] += 1
    elif flight[1] == seat:
        cnt["win_passed_self_draw"] += 1
    else:
        cnt["win_passed_flip"] += 1


def _possible(key: str, must_win: int) -> bool:
    """Whether the rules allow the event of ``key`` (``must_win``: the packed code)."""
    if must_win == 1:
        return not key.startswith("win_passed")
    if must_win == 0:
        # a seat without 王 must win on a discard; a 王 holder never wins on one
        return key != "win_passed_discard"
    return True


_HOWS = (Z.HOW_SELF, Z.HOW_FLIP, Z.HOW_DISCARD)


class _Tally:
    """Counts over deals of one table (policies by seat, resolved rules)."""

    def __init__(self, v, resolved, policies, overrides=None):
        self.v = v
        self.resolved = resolved
        self.packed = v.pack(resolved)
        self.values = packed_values(self.packed)
        self.pols, self.bots = DRIVER.seat(v, resolved, policies, overrides)
        self.seats = v.n_players(resolved)
        self.names = [abi.POLICY_NAMES[int(self.pols[s % len(self.pols)])] for s in range(4)]
        self.must_win = int(self.packed[Z.Z_MUST_WIN])
        self.counts: dict[str, Counter] = {p: Counter() for p in set(self.names)}
        self.deals = 0

    def add(self, events) -> None:
        """Count one deal's event log (int rows ``(code, a, b, c, d)``)."""
        st = _Deal(self.packed, self.values, self.seats, int(self.resolved["kings"]))
        _walk(np.asarray(events), st, self.names, self.must_win, self.counts)
        self.deals += 1

    def result(self) -> dict[str, int]:
        keys = [k for k in KEYS if _possible(k, self.must_win)]
        total = Counter()
        for c in self.counts.values():
            total.update(c)
        out = {k: int(total[k]) for k in keys}
        out["deals"] = self.deals
        played = sorted({self.names[s] for s in range(self.seats)})
        if len(played) > 1:
            for p in played:
                out.update({f"{p}:{k}": int(self.counts[p][k]) for k in keys if k != "deals"})
        return out


def _variant(variant):
    from engine.variants import get

    return get(variant) if isinstance(variant, str) else variant


def audit_events(variant, resolved, events, policies) -> dict[str, int]:
    """稽核 the counts of one logged deal (``events``: its event log, e.g. the ``events`` of
    :func:`engine.play.zipai.scenario.play_deck`), seats playing ``policies``.
    """
    tally = _Tally(_variant(variant), resolved, policies)
    tally.add(events)
    return tally.result()


def audit_zipai(variant, resolved, seed, deals, policies, match_length=16,
                overrides=None) -> dict[str, int]:  # fmt: skip
    """稽核 decision counts of ``deals`` deals of a 字牌 variant (module docstring).

    Parameters
    ----------
    variant : str or Variant
        The 字牌 variant.
    resolved : dict
        Its resolved rule options.
    seed : int
        The run's seed: the deals are those ``mjlab simulate`` plays with it (whole
        matches of ``match_length`` deals, the last one cut short).
    deals : int
        Deals to audit.
    policies : str or sequence of str
        One policy for every seat, or one per seat (seat ``s`` plays ``s mod n``).
    match_length : int
        Deals per match.
    overrides : sequence or None
        Per-seat bot parameter overrides (:func:`engine.runs.adapt.seat_overrides`).

    Returns
    -------
    dict of str to int
        The counts summed over the seats; when the seats play more than one policy, each
        policy's counts too, as ``"<policy>:<key>"``.
    """
    tally = _Tally(_variant(variant), resolved, policies, overrides)
    log = np.zeros((Z.MAX_EVENTS, Z.EVENT_COLS), np.int32)
    for m in range(-(-deals // match_length)):
        n = min(match_length, deals - m * match_length)
        rec = np.zeros((n, abi.N_COLS), np.int32)
        final = np.zeros((n, Z.N_ZONES, 21), np.int16)
        for dl in range(n):
            log[:] = 0
            DRIVER.play(tally.packed, tally.pols, tally.bots, seed, m, dl + 1, rec, final, log, dl)
            used = int(np.flatnonzero(log[:, 0])[-1]) + 1 if log[:, 0].any() else 0
            tally.add(log[:used])
    return tally.result()
