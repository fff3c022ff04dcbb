"""Score one 字牌 win from notation: 胡息, 醒, 囤, 番, patterns and payments.

The calculator behind ``mjlab score luodisao`` and the golden scoring tests; it calls the
same compiled scorer as the game loop (:mod:`engine.zipai._score`).

>>> from engine.variants import get
>>> v = get("luodisao")
>>> # The seed's example: 10 胡息 and 2 醒 make 16 囤 (won on seat 1's discard of 四).
>>> r = score_win(v, v.resolve({}), "d1d2d3 x5x5x5 x4x4d4 x6x7x8", win="x4", table="peng:x9",
...               from_seat=1, seat=0)
>>> r["huxi"], r["xing"], r["tun"], r["fan"], r["value"], r["deltas"]
(10, 2, 16, 1, 16, [32, -32, 0])
"""

from __future__ import annotations

import numpy as np

from ..errors import UsageError
from . import _layout as Z
from . import cards
from . import hand as zhand

__all__ = ["TABLE_WORDS", "parse_table_groups", "score_win"]

TABLE_WORDS = {
    "chi": Z.T_CHI,
    "peng": Z.T_PENG,
    "xiao": Z.T_XIAO,
    "chouxiao": Z.T_CHOUXIAO,
    "qing": Z.T_QING,
    "pao": Z.T_PAO,
}
"""Table group words: ``chi:x1x2x3`` (吃 or 比, three cards), ``peng:d3`` (碰), ``xiao:x5``
(啸), ``chouxiao:x5`` (臭啸, scored as a 啸), ``qing:d10`` (倾), ``pao:x5`` (跑)."""


def parse_table_groups(text: str):
    """落地 table groups from notation: ``(ntab, huxi, red, tcnt (20,), alike (20,))``.

    ``alike[k]``: the type (``T_*``) of the alike group of kind ``k``, 0 if none.
    UsageError on bad notation.
    """
    tcnt = np.zeros(20, np.int64)
    alike = np.zeros(20, np.int64)
    ntab = huxi = red = 0
    for item in (text or "").split():
        if ":" not in item:
            raise UsageError(f"table group {item!r}: expected WORD:CARDS such as peng:d3")
        word, body = item.split(":", 1)
        if word not in TABLE_WORDS:
            raise UsageError(f"table group {item!r}: unknown word; use {', '.join(TABLE_WORDS)}")
        name = "xiao" if word == "chouxiao" else word
        try:
            h = zhand.group_huxi(name, body)
            counts, kings = cards.parse(body)
        except ValueError as exc:
            raise UsageError(f"table group {item!r}: {exc}") from None
        if word != "chi":
            k = int(np.flatnonzero(counts)[0])
            if alike[k]:
                raise UsageError(f"table group {item!r}: two alike groups of {body}")
            alike[k] = TABLE_WORDS[word]
            counts = np.zeros(20, np.int64)
            counts[k] = 4 if word in ("qing", "pao") else 3
        tcnt += counts
        huxi += h
        red += int(cards.red_count(counts))
        ntab += 1
    if ntab > 5:
        raise UsageError(f"{ntab} table groups: at most 5")
    return ntab, huxi, red, tcnt, alike


def score_win(
    variant,
    rules,
    hand: str,
    *,
    win: str | None,
    table: str = "",
    from_seat: int | None = None,
    flip: bool = False,
    tianhu: bool = False,
    dihu: bool = False,
    xing_card: str | None = None,
    seat: int = 0,
    dealer: int = 0,
) -> dict:
    """胡牌计分 score one win of 祁阳落地扫 (RULEBOOK §4.5-4.6).

    Parameters
    ----------
    variant : Variant
        The 字牌 variant whose rules pack the scorer's options.
    rules : mapping
        Resolved rule options (``Variant.resolve``).
    hand : str
        The winner's concealed cards *including* the winning card (``w`` for 王).
    win : str or None
        The winning card (``"x9"``, ``"w"``). Under 天胡 (``tianhu``) the dealer's last
        dealt card, in the hand (it is the 醒 card under 跟醒 unless ``xing_card`` is
        given), or None.
    table : str
        The winner's table groups (:func:`parse_table_groups`).
    from_seat : int, optional
        The seat whose discard (or, with ``flip``, whose turned-up card) won; None for a
        self-draw.
    flip : bool
        The card was turned up from the stock by ``from_seat`` (every other player pays,
        no 自摸).
    tianhu, dihu : bool
        天胡 (the dealer's dealt cards; ``win`` None) / 地胡 (on the dealer's first
        discard; ``from_seat`` must be the dealer).
    xing_card : str, optional
        The card turned up after the win for 翻醒 / 上醒 / 下醒 (default: the winning
        card, the seed's 海底 rule); for 天胡 under 跟醒, the dealer's last dealt card
        (default: ``win``). 天胡 needs one of the two.
    seat, dealer : int
        The winner's seat and the dealer (for payments and the 坐醒 seat).

    Returns
    -------
    dict
        ``complete`` (a legal win with at least 6 胡息), ``patterns`` (pattern names),
        ``value`` (囤 × 番), ``huxi``, ``xing``, ``tun``, ``fan``, ``red``, ``shape``
        (``""``, ``wangdiao``, ``wangchuang``, ``wangzha``), ``deltas`` (one per seat),
        ``capped``, ``zuoxing_money``, ``notes``.

    Raises
    ------
    UsageError
        Bad notation, a winning card not in the hand, more than four of a kind, a 王
        holder winning on another player's card, inconsistent flags.
    """
    from ._huxi import _workspace
    from ._score import (
        HOW_DISCARD,
        HOW_FLIP,
        HOW_SELF,
        HOW_TIANHU,
        N_OUT,
        O_BITS,
        O_FAN,
        O_HUXI,
        O_RED,
        O_SHAPE,
        O_TUN,
        O_VALUE,
        O_XING,
        _pay_win,
        _score_win,
        _xing_kind,
    )

    v = variant
    packed = v.pack(rules)
    seats = v.n_players(rules)
    zx = (dealer + 2) % seats if rules["zuoxing"] else -1
    for name, s in (("seat", seat), ("dealer", dealer)):
        if not 0 <= s < seats:
            raise UsageError(f"{name} must be 0..{seats - 1}, got {s}")
    if seat == zx:
        raise UsageError(f"seat {seat} sits out this deal (坐醒)")
    try:
        counts, kings = cards.parse(hand)
    except ValueError as exc:
        raise UsageError(f"hand: {exc}") from None
    counts = counts.astype(np.int64)
    ntab, th, tr, tcnt, alike = parse_table_groups(table)
    if ((counts + tcnt) > 4).any():
        bad = cards.card_name(int(np.flatnonzero(counts + tcnt > 4)[0]))
        raise UsageError(f"more than four {bad} between the hand and the table")
    if kings > rules["kings"]:
        raise UsageError(f"{kings} 王 in the hand but kings={rules['kings']}")
    notes = []
    last = None
    if tianhu:
        if from_seat is not None or flip or dihu:
            raise UsageError("天胡 takes no --from, no flip or 地胡")
        if seat != dealer:
            raise UsageError("天胡 is the dealer's win")
        how, cand, feeder = HOW_TIANHU, -1, -1
        if win is not None:
            try:
                last = cards.card(win)
            except ValueError as exc:
                raise UsageError(f"winning card: {exc}") from None
            if (kings if last == 20 else counts[last]) == 0:
                raise UsageError(
                    f"the dealer's last dealt card {win} must be among the hand's cards"
                )
    else:
        if win is None:
            raise UsageError("name the winning card (--win CARD), or give 天胡 (--flag tianhu)")
        try:
            cand = cards.card(win)
        except ValueError as exc:
            raise UsageError(f"winning card: {exc}") from None
        if cand == 20:
            if kings == 0:
                raise UsageError("the winning 王 must be among the hand's cards")
            kings -= 1
        else:
            if counts[cand] == 0:
                raise UsageError(
                    f"the winning card {win} must be among the hand's cards "
                    "(the hand includes the winning card)"
                )
            counts[cand] -= 1
        if from_seat is None:
            if flip or dihu:
                raise UsageError("a flip or 地胡 win names the seat it came from (from_seat)")
            how, feeder = HOW_SELF, -1
        else:
            if not 0 <= from_seat < seats or from_seat in (seat, zx):
                raise UsageError(f"from_seat must be another playing seat, got {from_seat}")
            if cand == 20:
                raise UsageError("a 王 is never discarded: a 王 win is a self-draw")
            if kings > 0:
                raise UsageError("a player holding 王 wins only by self-draw (RULEBOOK §4.4)")
            if dihu and (flip or from_seat != dealer or seat == dealer):
                raise UsageError("地胡 is a win on the dealer's first discard")
            how, feeder = (HOW_FLIP if flip else HOW_DISCARD), from_seat
    flip_card = -1
    if rules["xing"] != "gen" or tianhu:
        if xing_card is not None:
            try:
                flip_card = cards.card(xing_card)
            except ValueError as exc:
                raise UsageError(f"xing card: {exc}") from None
        elif not tianhu:
            flip_card = cand
            notes.append("醒 card: the winning card (no --xing-card given)")
        elif last is not None:
            flip_card = last
            if rules["xing"] != "gen":
                notes.append("醒 card: the dealer's last dealt card (no --xing-card given)")
        else:
            raise UsageError(
                "天胡 needs its 醒 card: the dealer's last dealt card as the winning card "
                "(--win CARD), or the 醒 card (--xing-card CARD)"
            )
    base = cand if not tianhu else flip_card
    xk, xany, xmin = _xing_kind(packed, base, flip_card)
    if tianhu and rules["xing"] == "gen" and base == 20:
        xmin = 1
    up = int(alike[cand]) if 0 <= cand < 20 else 0
    out = np.zeros(N_OUT, np.int64)
    _score_win(
        packed,
        counts,
        kings,
        ntab,
        th,
        tr,
        tcnt,
        cand,
        how,
        up,
        dihu,
        xk,
        xany,
        xmin,
        _workspace(),
        out,
    )
    result = {
        "complete": bool(out[O_VALUE] >= 0),
        "patterns": [],
        "value": 0,
        "huxi": 0,
        "xing": 0,
        "tun": 0,
        "fan": 0,
        "red": 0,
        "shape": "",
        "deltas": [0] * seats,
        "capped": False,
        "zuoxing_money": 0,
        "notes": notes,
    }
    if out[O_VALUE] < 0:
        return result
    active = np.array([1 if s != zx and s < seats else 0 for s in range(4)], np.int64)
    delta = np.zeros(4, np.int64)
    capped, zm = _pay_win(
        packed, seats, active, seat, how, feeder, out[O_VALUE], out[O_XING], out[O_FAN], zx, delta
    )
    bits = int(out[O_BITS])
    result.update(
        patterns=[p.name for i, p in enumerate(v.patterns) if (bits >> i) & 1],
        value=int(out[O_VALUE]),
        huxi=int(out[O_HUXI]),
        xing=int(out[O_XING]),
        tun=int(out[O_TUN]),
        fan=int(out[O_FAN]),
        red=int(out[O_RED]),
        shape=("", "wangdiao", "wangchuang", "wangzha")[int(out[O_SHAPE])],
        deltas=[int(x) for x in delta[:seats]],
        capped=bool(capped),
        zuoxing_money=int(zm),
    )
    return result


def score_request(
    v,
    hand: str,
    *,
    win: str | None = None,
    rules=None,
    from_seat: int | None = None,
    melds: str = "",
    seat: int = 0,
    dealer: int = 0,
    streak: int = 0,
    wild=(),
    flowers: int = 0,
    xing_card: str | None = None,
    flags=(),
) -> dict:
    """One winning hand of the 字牌 family scored (``mjlab score``): ``hand`` and ``win`` in
    x1..x10 d1..d10 w notation, ``melds`` the table groups (``"peng:d3 pao:x5 chi:x1x2x3"``),
    ``flags`` among flip/tianhu/dihu, ``xing_card`` the 醒 card. Under 天胡 ``win`` is
    optional: it names the dealer's last dealt card (the 醒 card under 跟醒). The keywords
    are those of the mahjong family's ``score_request``; ``streak``, ``wild`` and ``flowers``
    must stay empty here.
    """
    if flowers:
        raise UsageError(f"--flowers: {v.name} has no flowers, got {flowers}")
    if streak:
        raise UsageError(f"--streak: {v.name}'s score takes no dealer streak")
    rules = v.resolve(rules)
    flagset = set(flags)
    unknown = flagset - {"flip", "tianhu", "dihu"}
    if unknown:
        raise UsageError(
            f"unknown --flag {sorted(unknown)[0]!r} for {v.name}; flags: flip, tianhu, dihu"
        )
    if wild:
        raise UsageError(f"{v.name}: 王 are written in HAND as w, not with --wild")
    try:
        return v.score_hand(
            rules,
            hand,
            win=win,
            table=melds,
            from_seat=from_seat,
            flip="flip" in flagset,
            tianhu="tianhu" in flagset,
            dihu="dihu" in flagset,
            xing_card=xing_card,
            seat=seat,
            dealer=dealer,
        )
    except ValueError as exc:
        raise UsageError(str(exc)) from None
