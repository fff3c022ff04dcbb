"""The 落地扫 hand calculator: one win scored from notation (胡息, 醒, 囤, 番, patterns,
payments), behind ``mjlab score luodisao`` and the golden scoring tests. It calls the same
compiled scorer as the game loop (:mod:`engine.variants.luodisao._kernels`).

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

from ...errors import UsageError
from ...zipai import cards
from ...zipai.scoring import parse_table_groups

__all__ = ["score_win"]


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
    from engine.zipai.huxi import _workspace

    from ._kernels import N_OUT, _score_win, xing_kind

    packed = variant.pack(rules)
    seats = variant.n_players(rules)
    zx = _sitting_out(rules, seats, seat, dealer)
    counts, kings, (ntab, th, tr, tcnt, alike) = _parse_cards(rules, hand, table)
    notes = []
    last = None
    if tianhu:
        how, cand, feeder, last = _tianhu_win(
            win, counts, kings, seat, dealer, from_seat, flip, dihu
        )
    else:
        how, cand, feeder, kings = _card_win(
            win, counts, kings, seats, seat, dealer, zx, from_seat, flip, dihu
        )
    flip_card = _xing_card(rules, tianhu, xing_card, cand, last, notes)
    base = cand if not tianhu else flip_card
    xk, xany, xmin = xing_kind(packed, base, flip_card)
    if tianhu and rules["xing"] == "gen" and base == 20:
        xmin = 1
    up = int(alike[cand]) if 0 <= cand < 20 else 0
    out = np.zeros(N_OUT, np.int64)
    _score_win(
        packed, counts, kings, ntab, th, tr, tcnt, cand, how, up, dihu, xk, xany, xmin,
        _workspace(), out,
    )  # fmt: skip
    return _result(variant, packed, seats, zx, seat, how, feeder, out, notes)


def _sitting_out(rules, seats: int, seat: int, dealer: int) -> int:
    """The 坐醒 seat that sits the deal out (-1 if none), ``seat`` and ``dealer`` checked."""
    zx = (dealer + 2) % seats if rules["zuoxing"] else -1
    for name, s in (("seat", seat), ("dealer", dealer)):
        if not 0 <= s < seats:
            raise UsageError(f"{name} must be 0..{seats - 1}, got {s}")
    if seat == zx:
        raise UsageError(f"seat {seat} sits out this deal (坐醒)")
    return zx


def _parse_cards(rules, hand: str, table: str):
    """``(counts, kings, groups)``: the hand's cards as int64 counts, its 王 and the
    :func:`parse_table_groups` of ``table``, checked for a fifth copy and the ``kings``
    option.
    """
    try:
        counts, kings = cards.parse(hand)
    except ValueError as exc:
        raise UsageError(f"hand: {exc}") from None
    counts = counts.astype(np.int64)
    groups = parse_table_groups(table)
    tcnt = groups[3]
    if ((counts + tcnt) > 4).any():
        bad = cards.card_name(int(np.flatnonzero(counts + tcnt > 4)[0]))
        raise UsageError(f"more than four {bad} between the hand and the table")
    if kings > rules["kings"]:
        raise UsageError(f"{kings} 王 in the hand but kings={rules['kings']}")
    return counts, kings, groups


def _card(text: str, what: str) -> int:
    """The card ``text`` names, or a usage error that says it was ``what``."""
    try:
        return cards.card(text)
    except ValueError as exc:
        raise UsageError(f"{what}: {exc}") from None


def _tianhu_win(win, counts, kings, seat, dealer, from_seat, flip, dihu):
    """天胡: ``(how, cand, feeder, last)``, ``last`` the dealer's last dealt card (None if
    not given), checked to be among the hand's cards.
    """
    from ._kernels import HOW_TIANHU

    if from_seat is not None or flip or dihu:
        raise UsageError("天胡 takes no --from, no flip or 地胡")
    if seat != dealer:
        raise UsageError("天胡 is the dealer's win")
    last = None
    if win is not None:
        last = _card(win, "winning card")
        if (kings if last == 20 else counts[last]) == 0:
            raise UsageError(f"the dealer's last dealt card {win} must be among the hand's cards")
    return HOW_TIANHU, -1, -1, last


def _card_win(win, counts, kings, seats, seat, dealer, zx, from_seat, flip, dihu):
    """A win on a card: ``(how, cand, feeder, kings)``, with the winning card taken out of
    the hand (``counts`` in place, ``kings`` returned) and the way it came checked.
    """
    from ._kernels import HOW_DISCARD, HOW_FLIP, HOW_SELF

    if win is None:
        raise UsageError("name the winning card (--win CARD), or give 天胡 (--flag tianhu)")
    cand = _card(win, "winning card")
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
        return HOW_SELF, cand, -1, kings
    if not 0 <= from_seat < seats or from_seat in (seat, zx):
        raise UsageError(f"from_seat must be another playing seat, got {from_seat}")
    if cand == 20:
        raise UsageError("a 王 is never discarded: a 王 win is a self-draw")
    if kings > 0:
        raise UsageError("a player holding 王 wins only by self-draw (RULEBOOK §4.4)")
    if dihu and (flip or from_seat != dealer or seat == dealer):
        raise UsageError("地胡 is a win on the dealer's first discard")
    return (HOW_FLIP if flip else HOW_DISCARD), cand, from_seat, kings


def _xing_card(rules, tianhu, xing_card, cand, last, notes) -> int:
    """The card turned up for 醒 (-1 under 跟醒 but 天胡), noting a default in ``notes``.

    A given ``xing_card`` is checked whether or not the rules turn a card up.
    """
    given = None if xing_card is None else _card(xing_card, "--xing-card")
    if rules["xing"] == "gen" and not tianhu:
        if given is not None:
            notes.append("--xing-card not used: under xing=gen (跟醒) no card is turned up")
        return -1
    if given is not None:
        return given
    if not tianhu:
        notes.append("醒 card: the winning card (no --xing-card given)")
        return cand
    if last is not None:
        if rules["xing"] != "gen":
            notes.append("醒 card: the dealer's last dealt card (no --xing-card given)")
        return last
    raise UsageError(
        "天胡 needs its 醒 card: the dealer's last dealt card as the winning card "
        "(--win CARD), or the 醒 card (--xing-card CARD)"
    )


def _result(variant, packed, seats, zx, seat, how, feeder, out, notes) -> dict:
    """The :func:`score_win` dictionary of the scorer's ``out`` and the payments."""
    from ._kernels import O_BITS, O_FAN, O_HUXI, O_RED, O_SHAPE, O_TUN, O_VALUE, O_XING, pay_win

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
    capped, zm = pay_win(
        packed, seats, active, seat, how, feeder, out[O_VALUE], out[O_XING], out[O_FAN], zx, delta
    )
    bits = int(out[O_BITS])
    result.update(
        patterns=[p.name for i, p in enumerate(variant.patterns) if (bits >> i) & 1],
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
