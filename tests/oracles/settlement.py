"""The numpy twins of the variants' settlements: each variant's payment written a second
time, independently of its kernels, at array speed over record frames.

The engine pays a deal once, with the variant's settlement kernel (in play, and again over
the record rows when re-scoring: :mod:`engine.runs.rescore`). These twins recompute every
record column the payout options fix (value, deltas, the patterns they price and the
variant's scoring extras) from the pattern flags and the rest of the record, so that the
tests can check the kernel against a model written apart from it
(``tests/engine/runs/test_rescore.py``, the variants' tests and ``test_engine.py``).
"""

from __future__ import annotations

import numpy as np

from engine.errors import UsageError
from engine.mahjong import layout as L
from engine.variants import fuzhou as _fuzhou
from engine.variants import lishui as _lishui
from engine.variants import luodisao as _luodisao
from engine.variants import tiny as _tiny
from engine.variants import tuidaohu as _tuidaohu
from engine.variants import zhuji as _zhuji
from engine.variants.lishui import _kernels as _lishui_K
from engine.variants.tuidaohu import _kernels as _tuidaohu_K
from engine.variants.zhuji import _kernels as _zhuji_K

__all__ = ["TWINS", "twin", "twin_mismatch", "RecordView"]


class RecordView:
    """The columns of a record frame as numpy arrays, for ``Variant.recompute``.

    ``won`` (a winner), ``winner``, ``discarder``, ``dealer`` (int64, -1 none),
    ``win_type`` (names), :meth:`pat` and :meth:`col`; :meth:`deltas` turns what each
    seat pays the winner into the ``delta_*`` columns.
    """

    def __init__(self, frame, players: int):
        self.frame = frame
        self.players = players
        self.n = len(frame)
        self.winner = frame["winner"].to_numpy().astype(np.int64)
        self.won = self.winner >= 0
        self.discarder = frame["discarder"].to_numpy().astype(np.int64)
        self.dealer = frame["dealer"].to_numpy().astype(np.int64)
        wt = frame["win_type"]
        if hasattr(wt, "cat"):
            # codes of the record's categories, mapped to the ABI's win-type numbers
            cats = [L.WIN_TYPE_NAMES.index(str(c)) for c in wt.cat.categories]
            self.win_code = np.asarray(cats, np.int64)[wt.cat.codes.to_numpy()]
        else:
            self.win_code = np.array([L.WIN_TYPE_NAMES.index(str(t)) for t in wt], np.int64)

    def pat(self, name: str) -> np.ndarray:
        """The flag ``pat_<name>`` (bool)."""
        return self.frame[f"pat_{name}"].to_numpy().astype(bool)

    def col(self, name: str) -> np.ndarray:
        """A column as int64."""
        return self.frame[name].to_numpy().astype(np.int64)

    @property
    def win_type(self) -> np.ndarray:
        """The win types by name."""
        return np.asarray(L.WIN_TYPE_NAMES, dtype=object)[self.win_code]

    def is_type(self, *names: str) -> np.ndarray:
        """Whether the win type is one of ``names``."""
        return np.isin(self.win_code, [L.WIN_TYPE_NAMES.index(n) for n in names])

    def others(self, amount) -> np.ndarray:
        """``(n, players)``: every seat but the winner pays ``amount`` (winning deals)."""
        seats = np.arange(self.players)[None, :]
        return np.where(self.won[:, None] & (seats != self.winner[:, None]), amount[:, None], 0)

    def one(self, seat, amount) -> np.ndarray:
        """``(n, players)``: seat ``seat`` (array) pays ``amount`` (winning deals)."""
        seats = np.arange(self.players)[None, :]
        return np.where(self.won[:, None] & (seats == seat[:, None]), amount[:, None], 0)

    def deltas(self, paid: np.ndarray) -> dict:
        """``delta_*`` columns from ``paid[i, s]``, what seat s pays the winner of deal i."""
        out = -paid.astype(np.int64)
        rows = np.flatnonzero(self.won)
        out[rows, self.winner[rows]] += paid[rows].sum(axis=1)
        return {f"delta_{s}": out[:, s] for s in range(self.players)}


# ---- tiny --------------------------------------------------------------------------------
def tiny(rules, frame) -> dict:
    """The value and the payments from the pattern flags (the conformance check)."""
    r = RecordView(frame, 4)
    value = np.full(r.n, rules["pay_base"], np.int64)
    for p in _tiny.PATTERNS:
        value = np.where(r.pat(p.name), value * p.value, value)
    value = np.where(r.won, value, 0)
    discard = r.is_type("discard")
    paid = np.where(discard[:, None], r.one(r.discarder, value), r.others(value))
    return {"value": value, **r.deltas(paid)}


# ---- tuidaohu ----------------------------------------------------------------------------
def _kong_money(rules, tally, n):
    """Kong money of the deals with kongs: ``(net[q], horse[p])`` per seat from the tallies
    and the horses naming each seat ``n[q]``: what the dealer's horses move for a seat p
    is ``sum_q n[q] (K[q][p] - K[p][q])`` over the kong money K (the dealer's own row is
    the caller's).
    """
    fang = rules["pay_fanggang"]
    each = [
        rules["pay_bugang"] * (t & 7) + rules["pay_angang"] * ((t >> _tuidaohu_K.TALLY_ANGANG) & 7)
        for t in tally
    ]
    ming = [
        [None] + [(t >> (_tuidaohu_K.TALLY_FANGGANG + 3 * (k - 1))) & 7 for k in (1, 2, 3)]
        for t in tally
    ]
    every = each[0] + each[1] + each[2] + each[3]
    net = []
    for q in range(4):
        fin = ming[q][1] + ming[q][2] + ming[q][3]
        fout = ming[(q - 1) % 4][1] + ming[(q - 2) % 4][2] + ming[(q - 3) % 4][3]
        net.append(4 * each[q] - every + fang * (fin - fout))
    if n is None:
        return net, None
    total = n[0] + n[1] + n[2] + n[3]
    spread = n[0] * each[0] + n[1] * each[1] + n[2] * each[2] + n[3] * each[3]
    horse = []
    for p in range(4):
        ming_in = sum(n[(p + k) % 4] * ming[p][k] for k in (1, 2, 3))
        ming_out = sum(n[(p - k) % 4] * ming[(p - k) % 4][k] for k in (1, 2, 3))
        horse.append(each[p] * total - spread + fang * (ming_in - ming_out))
    return net, horse


def tuidaohu(rules, frame) -> dict:
    """The record columns that the pattern flags and the scoring inputs fix (the
    conformance check, and the re-score under payout options).

    ``pat_wugui`` (no 鬼 held, under no_ghost_double with 鬼 in play); ``value`` = 底 ×
    自摸 factor (not a discard win) × the largest 大胡 multiplier × 无鬼 factor; the win
    money: a discard is paid by the discarder, a robbed kong by the kong player
    (``pay_qianggang`` shares), a 杠上开花 after a 放杠 by its feeder (``kong_feeder``,
    ``pay_gangbao`` shares), else by each other seat; the kong money from the tallies
    (void on a draw under huangzhuang_huanggang); the horses from ``horse_tiles`` under
    horse_map: the dealer's copy the hit seats' transfers (win and kong money), the
    winner's add each payer's win money again, ``pay_horse`` times; every delta is the
    sum.
    """
    r = RecordView(frame, 4)
    i32 = np.int32

    def col(name):
        return frame[name].to_numpy().astype(i32, copy=False)

    mult = np.ones(r.n, i32)
    for name in _tuidaohu._BIG:
        mult = np.where(r.pat(name), np.maximum(mult, rules[f"pay_{name}"]), mult)
    wugui = r.won & (col("wilds_in_hand") == 0)
    wugui &= bool(rules["no_ghost_double"]) and rules["ghost"] != "none"
    discard = r.is_type("discard")
    amount = rules["pay_base"] * np.where(discard, 1, rules["pay_zimo"]).astype(i32) * mult
    amount = amount * np.where(wugui, rules["pay_wugui"], 1).astype(i32)
    value = np.where(r.won, amount, 0).astype(i32)
    # win money: win[p] is what seat p pays the winner
    winner = r.winner.astype(i32)
    feeder = col("kong_feeder")
    rob = r.is_type("rob_kong")
    fed = r.is_type("kong_draw") & (feeder >= 0)
    plain = r.won & ~discard & ~rob & ~fed
    payer = np.where(fed, feeder, r.discarder.astype(i32))
    share = np.where(rob, rules["pay_qianggang"], rules["pay_gangbao"]).astype(i32) * value
    share = np.where(discard, value, share)
    is_winner = [winner == q for q in range(4)]
    win = [
        np.where(plain, np.where(is_winner[q], 0, value), np.where(payer == q, share, 0))
        for q in range(4)
    ]
    won_total = win[0] + win[1] + win[2] + win[3]
    win_net = [np.where(is_winner[q], won_total, 0) - win[q] for q in range(4)]
    # horses: counts by the seat offset they name, under the map
    tiles = col("horse_tiles")
    cls = [(tiles >> (_tuidaohu_K.HORSE_CLASS_BITS * c)) & 15 for c in range(7)]
    off = list(cls[:4])
    for dragon, (seed_off, mil_off) in zip((4, 5, 6), ((0, 1), (1, 2), (2, 3)), strict=True):
        o = seed_off if rules["horse_map"] == "seed" else mil_off
        off[o] = off[o] + cls[dragon]
    times = rules["pay_horse"]
    dealer_horses = not rules["horses"].startswith("winner:")
    d = r.dealer
    if dealer_horses:
        # n[q]: the dealer's horses naming seat q
        n = [np.choose((q - d) % 4, off) for q in range(4)]
        hits = np.where(r.won, np.choose(np.maximum(winner, 0), n), 0).astype(i32)
        wsum = n[0] * win[0] + n[1] * win[1] + n[2] * win[2] + n[3] * win[3]
        horse = [np.where(is_winner[p], wsum, -hits * win[p]) for p in range(4)]
    else:
        # the winner's horses: each hit, every payer pays his win money again
        n = None
        hits = np.where(r.won, off[0], 0).astype(i32)
        horse = [hits * win_net[q] for q in range(4)]
    # kong money, on the deals with kongs (void on a draw under 荒庄荒杠)
    tally = [col(f"kong_tally_{q}") for q in range(4)]
    any_kong = (tally[0] | tally[1] | tally[2] | tally[3]) != 0
    if rules["huangzhuang_huanggang"]:
        any_kong &= r.won
    rows = np.flatnonzero(any_kong)
    kong_net = [np.zeros(r.n, i32) for _ in range(4)]
    sub_n = None if n is None else [x[rows] for x in n]
    k_net, k_horse = _kong_money(rules, [t[rows] for t in tally], sub_n)
    for q in range(4):
        kong_net[q][rows] = k_net[q]
        if k_horse is not None:
            horse[q][rows] += k_horse[q]
    if dealer_horses:
        for p in range(4):
            horse[p] = np.where(d == p, 0, horse[p])
        dealer_net = -(horse[0] + horse[1] + horse[2] + horse[3])
        horse = [np.where(d == p, dealer_net, horse[p]) for p in range(4)]
    out = {"value": value, "horse_hits": hits, "pat_wugui": wugui}
    for q in range(4):
        h = times * horse[q]
        out[f"kong_money_{q}"] = kong_net[q]
        out[f"horse_money_{q}"] = h
        out[f"delta_{q}"] = kong_net[q] + win_net[q] + h
    return out


# ---- lishui ------------------------------------------------------------------------------
def base_of(rules, streak):
    """底 for dealer streaks ``streak`` (array): pay_base + pay_base_step x streak, capped."""
    b = rules["pay_base"] + rules["pay_base_step"] * np.asarray(streak, np.int64)
    cap = rules["base_cap"]
    return b if cap == "none" else np.minimum(b, int(cap))


PENALTY_COLUMNS = ("beigen_money", "wuda_money", "fanqiang_money", "tongbao_money", "kong_money")
"""Extra columns of money besides the win's shares; every delta is the shares plus them
(被跟's as its units when ``beigen=always`` and ``pay_beigen=1``, the seed's rules)."""


def lishui(rules, frame) -> dict:
    """The record columns that the payout options and the scoring inputs fix: the
    conformance check, and the re-score of recorded deals (engine.runs.rescore).

    The reading paid is chosen again from the readings ``score_in`` says the hand
    completes in (standard, with 大对子 when it fits; 七对子; 不搭), each worth the sum of
    its patterns' 倍 in the 自摸 column (self-draw, 杠上开花) or the 非自摸 one, or the plain
    倍 when none: the most 倍, ties to the first of standard, 七对子, 不搭, as in play.
    Each loser's share is 底 x 倍 when the winner or he is the dealer, else 倍 (底 =
    pay_base + pay_base_step x the dealer's streak, capped by base_cap); the robbed kong
    player pays all shares; under 统包 the liable seat (the one the records' shift charges)
    pays them; 犯枪 adds pay_fanqiang from the discarder; 被跟 pays pay_beigen x the
    recorded units (all runs, the first round's, or none); kong money is kong_pay x each
    seat's net kong units; 误打财神 money is as recorded.
    """
    if "score_in" not in frame.columns:
        raise UsageError(
            "lishui: these records lack the score_in column (the inputs of a re-score); "
            "simulate them again with this version"
        )
    r = RecordView(frame, 4)
    i32 = np.int32

    def col(name):  # a column as int32 (no copy for the extras)
        return frame[name].to_numpy().astype(i32, copy=False)

    zimo = r.is_type("self_draw", "kong_draw")
    si = col("score_in")
    ztab, ftab = _lishui.bei_tables(rules)
    bit = _lishui_K.BIT

    def worth(name):  # the pattern's 倍 in the column of each deal
        i = bit[name]
        return np.where(zimo, i32(ztab[i]), i32(ftab[i]))

    csh_in = _lishui_K.IN_CSH_DRAWN if rules["caishenhui"] == "drawn" else _lishui_K.IN_CSH_THREE
    csh = (si & csh_in) != 0
    common = np.where(csh, worth("caishenhui"), i32(0))
    for name in ("tianhu", "dihu", "gangkai", "qianggang"):
        flag = frame[f"pat_{name}"].to_numpy()
        if flag.any():
            common += np.where(flag, worth(name), i32(0))
    tag_q = (si & _lishui_K.IN_QINGYISE) != 0
    tag_z = (si & _lishui_K.IN_ZIYISE) != 0
    tags = np.where(tag_q, worth("qingyise"), i32(0)) + np.where(tag_z, worth("ziyise"), i32(0))
    dd = (si & _lishui_K.IN_DADUIZI) != 0
    x = rules["pay_zimo_x"]
    plain = np.where(zimo, i32(x * rules["pay_plain"]), i32(rules["pay_plain"]))

    def bei(total):
        return np.where(total == 0, plain, total)

    readings = (
        (
            (si & _lishui_K.IN_STANDARD) != 0,
            bei(common + tags + np.where(dd, worth("daduizi"), i32(0))),
        ),
        ((si & _lishui_K.IN_QIDUIZI) != 0, bei(common + tags + worth("qiduizi"))),
        ((si & _lishui_K.IN_BUDA) != 0, bei(common + worth("buda"))),
    )
    best = np.full(r.n, -1, i32)
    chosen = np.full(r.n, -1, np.int8)
    for i, (ok, v) in enumerate(readings):
        take = ok & (v > best)
        best = np.where(take, v, best)
        chosen = np.where(take, np.int8(i), chosen)
    won = r.won
    value = np.where(won, np.maximum(best, i32(0)), i32(0))
    suited = won & (chosen <= 1) & (chosen >= 0)
    pats = {
        "pat_qingyise": suited & tag_q,
        "pat_ziyise": suited & tag_z,
        "pat_qiduizi": won & (chosen == 1),
        "pat_daduizi": won & (chosen == 0) & dd,
        "pat_buda": won & (chosen == 2),
        "pat_caishenhui": won & csh,
    }
    base = base_of(rules, frame["dealer_streak"].to_numpy()).astype(i32)
    winner = frame["winner"].to_numpy()
    dealer = frame["dealer"].to_numpy()
    discarder = frame["discarder"].to_numpy()
    dealer_won = winner == dealer
    rob = r.is_type("rob_kong")
    # each loser's share (0 for the winner and on a drawn deal)
    dealer_pays = value * base
    share = [
        np.where(won & (winner != s), np.where(dealer_won | (dealer == s), dealer_pays, value), 0)
        for s in range(4)
    ]
    total = share[0] + share[1] + share[2] + share[3]
    tb = [col(f"tongbao_money_{s}") for s in range(4)]
    low = np.minimum(np.minimum(tb[0], tb[1]), np.minimum(tb[2], tb[3]))
    liable = np.full(r.n, -1, np.int8)
    charged = (low < 0) & won & ~rob
    if charged.any():
        for s in (3, 2, 1, 0):  # the first seat charged, as argmin
            liable = np.where(tb[s] == low, np.int8(s), liable)
    liable = np.where(charged, liable, np.int8(-1))
    has_liable = liable >= 0
    shift = [np.where(has_liable & (liable != s), share[s], 0) for s in range(4)]
    shifted = shift[0] + shift[1] + shift[2] + shift[3]
    fine = np.where(r.is_type("discard") & won, i32(rules["pay_fanqiang"]), i32(0))
    units = [(si >> (_lishui_K.IN_KONG_SHIFT + 4 * s)) & 15 for s in range(4)]
    all_units = units[0] + units[1] + units[2] + units[3]
    mode = rules["beigen"]
    first = (si & _lishui_K.IN_BEIGEN_FIRST) != 0
    out = {"value": value, **pats, "base": base}
    for s in range(4):
        paid = np.where(rob, np.where(discarder == s, total, 0), share[s])
        tongbao = shift[s] - np.where(liable == s, shifted, 0)
        fanqiang = np.where(winner == s, fine, 0) - np.where(discarder == s, fine, 0)
        kong = rules["kong_pay"] * (4 * units[s] - all_units)
        delta = np.where(winner == s, total, 0) - paid + tongbao + fanqiang + kong
        delta += col(f"wuda_money_{s}")
        if mode == "always":
            delta += rules["pay_beigen"] * col(f"beigen_money_{s}")
        elif mode == "first_round":
            each = np.where(dealer == s, i32(-3), i32(1))  # the dealer discards first
            delta += np.where(first, i32(rules["pay_beigen"]) * each, i32(0))
        out[f"delta_{s}"] = delta
        out[f"fanqiang_money_{s}"] = fanqiang
        out[f"tongbao_money_{s}"] = tongbao
        out[f"kong_money_{s}"] = kong
    return out


# ---- zhuji -------------------------------------------------------------------------------
TAI = {p.name: int(_zhuji_K.TAI[i]) for i, p in enumerate(_zhuji.PATTERNS) if _zhuji_K.TAI[i]}
"""Ordinary 台 of each pattern that has any (RULEBOOK §2.3 rules 13-16), read by
:func:`zhuji`; from the declarations (:data:`engine.variants.zhuji._kernels.TAI`)."""


def _bits(frame, names) -> np.ndarray:
    """The pattern flags of the records as int32 bits (bit order)."""
    out = np.zeros(len(frame), np.int32)
    for name in names:
        flag = frame[f"pat_{name}"].to_numpy()
        if flag.any():
            out |= flag.astype(np.int32) << _zhuji_K.BIT[name]
    return out


def zhuji(rules, frame) -> dict:
    """The record columns the payout options and the scoring inputs fix: the conformance
    check, and the re-score of recorded deals (engine.runs.rescore).

    ``tai_ordinary`` = the sum of the flags' 台. A reading with an 8-台 hand (天胡, 地胡,
    无财 under ``wucai``, 全字牌) is worth max(S, 台), or S + 台 under ``special8=add``,
    where S is the largest of their values (pay_special8); the reading paid is the better (most
    value, then most ordinary 台, then the first found) of the recorded one and the
    alternative of the other kind (``alt_tai``, ``score_in``), and its flags are the
    record's; the value paid is at most ``tai_cap``; the deltas are RULEBOOK §2.4 rule 18.
    """
    missing = [c for c in ("alt_tai", "score_in") if c not in frame.columns]
    if missing:
        raise UsageError(
            f"zhuji: these records lack {', '.join(missing)} (the inputs of a re-score); "
            "simulate them again with this version"
        )
    r = RecordView(frame, 4)
    i32 = np.int32
    names = [p.name for p in _zhuji.PATTERNS]
    si = frame["score_in"].to_numpy().astype(i32, copy=False)
    guiwei = (si & _zhuji_K.IN_GUIWEI) != 0
    held = frame["wilds_in_hand"].to_numpy()
    wucai = (held == 0) | ((rules["wucai"] == "guiwei") & guiwei)
    wucai &= r.won & (rules["caishen"] > 0)
    wbit = i32(1 << _zhuji_K.BIT["wucai"])
    recorded = _bits(frame, names)
    paid_bits = np.where(wucai, recorded | wbit, recorded & ~wbit)
    alt_ord = frame["alt_tai"].to_numpy().astype(i32, copy=False)
    has_alt = alt_ord >= 0
    any_alt = bool(has_alt.any())
    alt_bits = np.where(has_alt, np.where(wucai, si | wbit, si & ~wbit) & _zhuji_K.IN_ALT_BITS, 0)
    alt_first = (si & _zhuji_K.IN_ALT_FIRST) != 0
    ordinary = np.zeros(r.n, i32)
    for name, t in TAI.items():
        if (recorded & (1 << _zhuji_K.BIT[name])).any():
            ordinary += i32(t) * ((recorded >> _zhuji_K.BIT[name]) & 1)
    values = _zhuji.special_values(rules)
    add = rules["special8"] == "add"

    def worth(bits, ord_):
        eight = np.full(r.n, -1, i32)
        for name in _zhuji.SPECIAL8:
            has = ((bits >> _zhuji_K.BIT[name]) & 1) == 1
            if has.any():
                eight = np.where(has, np.maximum(eight, i32(values[name])), eight)
        boosted = eight + ord_ if add else np.maximum(eight, ord_)
        return np.where(eight >= 0, boosted, ord_)

    v_paid = worth(paid_bits, ordinary)
    if any_alt:
        v_alt = worth(alt_bits, alt_ord)
        swap = has_alt & (
            (v_alt > v_paid)
            | ((v_alt == v_paid) & (alt_ord > ordinary))
            | ((v_alt == v_paid) & (alt_ord == ordinary) & alt_first)
        )
        bits = np.where(swap, alt_bits, paid_bits)
        tai = np.where(swap, alt_ord, ordinary)
        value = np.where(swap, v_alt, v_paid)
    else:
        swap = np.zeros(r.n, bool)
        bits, tai, value = paid_bits, ordinary, v_paid
    if rules["tai_cap"] > 0:
        value = np.minimum(value, i32(rules["tai_cap"]))
    value = np.where(r.won, value, i32(0))
    fed = r.is_type("discard", "rob_kong")
    mode = rules["discard_pay"]
    times = i32(3 if mode == "discarder_x3" else 1)
    winner = frame["winner"].to_numpy()
    discarder = frame["discarder"].to_numpy()
    paid = []
    for s in range(4):
        each = np.where(r.won & (winner != s), value, i32(0))
        if mode != "all_three":
            each = np.where(fed, np.where(discarder == s, times * value, i32(0)), each)
        paid.append(each)
    total = paid[0] + paid[1] + paid[2] + paid[3]
    other_bits = np.where(swap, paid_bits, alt_bits)
    # after a swap the recorded reading is the alternative; it was found first exactly
    # when the new paid one was not
    first_after = np.where(swap, ~alt_first, alt_first) & has_alt
    score_in = (
        np.where(has_alt, other_bits, 0)
        | np.where(first_after, i32(_zhuji_K.IN_ALT_FIRST), i32(0))
        | np.where(guiwei, i32(_zhuji_K.IN_GUIWEI), i32(0))
    )
    out = {
        "tai_ordinary": np.where(r.won, tai, i32(0)),
        "value": value,
        "alt_tai": np.where(has_alt, np.where(swap, ordinary, alt_ord), i32(-1)),
        "score_in": score_in,
    }
    for s in range(4):
        out[f"delta_{s}"] = np.where(winner == s, total, i32(0)) - paid[s]
    for name in names:
        out[f"pat_{name}"] = r.won & (((bits >> _zhuji_K.BIT[name]) & 1) == 1)
    return out


# ---- fuzhou ------------------------------------------------------------------------------
def fuzhou(rules, frame) -> dict:
    """The record columns that the pattern flags and scoring inputs fix (the conformance
    check, and the re-score under payout options).

    ``lianzhuang`` = ``dealer_wins`` (or ``dealer_streak`` under ``draw_adds_lianzhuang``);
    ``special`` = the largest special among the flags under the formula's table (the
    ``pay_<special>_<formula>`` options; multiplier: 1 if none); ``value`` = X of
    RULEBOOK §3.5 rule 22 from ``pay_base_<formula>`` and the ``huafan``, ``golds`` and
    ``lianzhuang`` columns, × the 游金 multiplier of the flags (``pay_danyou`` ...); the
    deltas: a discard or robbed-kong win paid X by the discarder (新修订: by each other
    seat), a self-draw X by each other seat.
    """
    r = RecordView(frame, 4)
    formula = rules["scoring"]
    special = np.full(r.n, 1 if formula == "multiplier" else 0, np.int64)
    for name in _fuzhou.SPECIALS[formula]:
        v = rules[f"pay_{name}_{formula}"]
        special = np.where(r.pat(name), np.maximum(special, v), special)
    lian = r.col("dealer_streak" if rules["draw_adds_lianzhuang"] else "dealer_wins")
    base = rules[f"pay_base_{formula}"] + r.col("huafan") + r.col("golds") + lian
    fed = r.is_type("discard", "rob_kong")
    double = np.where(fed, 1, 2)
    if formula == "qq":
        x = base * 2 + special
    elif formula == "xinxiuding":
        x = base * double + special
    else:
        x = base * double * special
    mult = np.ones(r.n, np.int64)
    if rules["youjin"] == "minnan":
        for name in _fuzhou._YOU:
            mult = np.where(r.pat(name), rules[f"pay_{name}"], mult)
    value = np.where(r.won, x * mult, 0)
    if formula == "xinxiuding":
        paid = r.others(value)
    else:
        paid = np.where(fed[:, None], r.one(r.discarder, value), r.others(value))
    return {
        "lianzhuang": lian,
        "special": np.where(r.won, special, 0),
        "value": value,
        **r.deltas(paid),
    }


# ---- luodisao ----------------------------------------------------------------------------
WIN_METHODS = (
    "zimo",
    "wangdiao",
    "wangdiaowang",
    "wangchuang",
    "wangchuangwang",
    "wangzha",
    "wangzhawang",
)
"""Patterns of the win method factor (自摸 ×2, or a 王 shape that replaces it)."""


COLOURS = ("honghu", "yidianzhu", "quanhong", "heihu")
"""Patterns of the colour factor (at most one)."""


def _huang_money(rules, r, seats, active) -> np.ndarray:
    """``(n, seats)`` 黄庄 王 money (rule 24) from ``wang_held`` (as ``pay_huangzhuang``)."""
    held = r.col("wang_held")
    k = np.stack([(held // 10**s) % 10 for s in range(seats)], axis=1) * active
    per = rules["huang_per_wang"]
    n = np.maximum(active.sum(axis=1), 1)
    if rules["huangzhuang"] == "pairwise":
        # seat s: per × Σ_b (k_b - k_s) over the other active seats b
        return per * (k.sum(axis=1)[:, None] - n[:, None] * k) * active
    total = per * k.sum(axis=1)
    zero = ((k == 0) & active).sum(axis=1)
    pays = (zero > 0) & (total > 0)
    base = np.where(pays, total // np.maximum(zero, 1), 0)
    rem = np.where(pays, total - base * zero, 0)
    money = np.zeros_like(k)
    rows = np.arange(r.n)
    for i in range(seats):
        s = (r.dealer + i) % seats
        ks, on = k[rows, s], active[rows, s] & pays
        extra = (rem > 0) & (ks == 0) & on
        money[rows, s] = np.where(on, np.where(ks > 0, -per * ks, base + extra), 0)
        rem = rem - extra
    return money


def luodisao(rules, frame) -> dict:
    """The record columns that the payout options and the reading fix (the conformance
    check, and re-scoring: :mod:`engine.runs.rescore`).

    ``xing`` = ``xing_raw`` (× 2 under 双醒); ``tun`` = ``huxi`` + ``tun_per_xing`` × 醒
    (RULEBOOK §4.6 rule 20); the colour flag from the ``red`` count (黑胡 0, 一点朱 1, 红胡
    7-9, 全红 more); ``fan`` from the flags and the ``pay_*`` _luodisao.factors (rule 22: win method
    × colour × 地胡, or their sum under ``fan_combine=add``; 天胡 its single largest
    factor, max(天胡, colour)); ``value`` = 囤 × 番; ``zuoxing_money`` = (``tun_per_xing``
    × 醒 × 番) // 2 under 坐醒; the deltas of rule 23 (each other playing seat pays
    ``value``, a discarder pays it for each, at most ``cap``); on a 黄庄 the 王 money from
    ``wang_held`` (``huangzhuang``, ``huang_per_wang``). The reading (胡息, red cards,
    patterns) is the one the seed's table chose, which no payout option moves.
    """
    seats = _luodisao.players_of(rules)
    r = RecordView(frame, seats)
    factor = dict(zip((p.name for p in _luodisao.PATTERNS), _luodisao.factors(rules), strict=True))

    def pick(names):
        f = np.ones(r.n, np.int64)
        for name in names:
            f = np.where(r.pat(name), factor[name], f)
        return f

    method, colour, di = pick(WIN_METHODS), pick(COLOURS), pick(("dihu",))
    if rules["fan_combine"] == "add":
        fan = np.maximum(sum(np.where(f > 1, f, 0) for f in (method, colour, di)), 1)
    else:
        fan = method * colour * di
    fan = np.where(r.pat("tianhu"), np.maximum(factor["tianhu"], colour), fan)
    fan = np.where(r.won, fan, 0)
    xing = np.where(r.won, r.col("xing_raw") * (2 if rules["shuangxing"] else 1), 0)
    per_xing = rules["tun_per_xing"]
    tun = np.where(r.won, r.col("huxi") + per_xing * xing, 0)
    value = tun * fan
    red = r.col("red")
    shade = {
        "heihu": red == 0,
        "yidianzhu": red == 1,
        "honghu": (red >= _luodisao.RED_HONGHU[0]) & (red <= _luodisao.RED_HONGHU[1]),
        "quanhong": red > _luodisao.RED_HONGHU[1],
    }
    shade = {f"pat_{k}": (r.won & v).astype(np.int64) for k, v in shade.items()}
    zx = r.col("zuoxing")
    zmoney = np.where(r.won & (zx >= 0), (per_xing * xing * fan) // 2, 0)
    cap = rules["cap"] or np.iinfo(np.int64).max
    active = np.arange(seats)[None, :] != zx[:, None]
    payers = (active & (np.arange(seats)[None, :] != r.winner[:, None])).sum(axis=1)
    each = r.others(np.minimum(value, cap)) * active
    alone = r.one(r.discarder, np.minimum(value * payers, cap))
    on_discard = r.is_type("discard") & (r.col("win_on_flip") == 0)
    paid = np.where(on_discard[:, None], alone, each)
    deltas = r.deltas(paid)
    rows = np.flatnonzero(zmoney)
    huang = np.where(r.won[:, None], 0, _huang_money(rules, r, seats, active))
    for s in range(seats):
        d = deltas[f"delta_{s}"]
        d[rows] += np.where(zx[rows] == s, zmoney[rows], 0)
        d[rows] -= np.where(r.winner[rows] == s, zmoney[rows], 0)
        deltas[f"delta_{s}"] = np.where(r.won, d, huang[:, s])
    wang = {f"wang_money_{s}": huang[:, s] if s < seats else np.zeros(r.n, np.int64)
            for s in range(4)}  # fmt: skip
    capped = np.where(on_discard, value * payers > cap, r.won & (value > cap))
    return {
        **shade,
        "xing": xing,
        "tun": tun,
        "fan": fan,
        "value": value,
        "zuoxing_money": zmoney,
        "capped": capped.astype(np.int64),
        **wang,
        **deltas,
    }


TWINS = {
    "tiny": tiny,
    "tuidaohu": tuidaohu,
    "lishui": lishui,
    "zhuji": zhuji,
    "fuzhou": fuzhou,
    "luodisao": luodisao,
}
"""Each variant's twin: ``twin(resolved, frame) -> {column: values}``."""


def twin(variant, resolved, frame) -> dict:
    """The columns the twin of ``variant`` gives for a record frame under ``resolved``."""
    return TWINS[variant.name](resolved, frame)


def twin_mismatch(variant, resolved, frame):
    """The first deal whose record disagrees with the twin, as ``(i, message)``, or None."""
    from engine.play.records import first_mismatch

    return first_mismatch(frame, twin(variant, resolved, frame), "the twin gives")
