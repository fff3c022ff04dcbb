"""丽水麻将 (lishui): one 财神 with the 白板 stand-in, additive 倍, a growing dealer base.

Rules
-----
RULEBOOK §1 (seed ``000_4a6a77f6d83e1c3c.txt``): 136 tiles, dealer 14 / others 13,
replacements from the tail (海底). After dealing 2d6 = k names the k-th tile from the
tail; it is flipped and set aside, and its own kind is the 财神 (3 live tiles). The 4
白板 play as ordinary tiles of the 财神's kind (白板代财神), unless the 财神 is 白板
itself. A 财神 is wild only in the winning hand: never discarded (option: allowed with a
误打财神 fine of 1 to each), never in 吃/碰/杠. Claims 吃 (from the 上家 only), 碰, 明杠,
补杠, 暗杠; wins on any discard and on a robbed 补杠, one winner (head bump); 胡 > 碰 = 杠 >
吃. Shapes: 4 sets + pair, 七对子 and 不搭 (十三不搭), the last two concealed.

倍数: 1 for a plain discard win, 2 for a plain self-draw; otherwise the sum of the
special patterns (自摸 / 非自摸 columns): 清一色 8/4, 字一色 8/4, 七对子 4/2, 大对子 4/2,
不搭 4/2; 天胡 8, 地胡 4, 杠上开花 4, 财神会 4, 抢杠 4 - the best-scoring reading counts.
底 = 3 + 2 x the dealer's consecutive wins before this deal (3, 5, 7, 9, capped). A
dealer win: each other seat pays 底 x 倍. A non-dealer win: the dealer pays 底 x 倍, each
other non-dealer 1 x 倍. 犯枪: the discarder pays the winner 1 more. 统包: after B chowed
A's discards three times, if A or B wins the other pays every loser's share. 抢杠: the
kong player pays all three shares. 被跟: when four discards in a row (no claim between)
are the same tile, the first discarder pays 1 to each. The dealer keeps the deal only
by winning; after a draw or another seat's win his 下家 deals and 底 restarts at 3.

Engine simplifications
----------------------
- The first dealer of each match is drawn at random; the dice only pick where the
  wall breaks in a uniformly shuffled wall, so the deal is a uniform shuffle, and the
  seat reshuffle after each 版 is not played (RULEBOOK §0.6).
- ``tiles=144`` adds the 8 flowers as dead tiles replaced at once from the tail; they
  score nothing, so every tile that reaches a hand, the indicator and the wall end are
  distributed as with 136 tiles. The engine plays 136 tiles under both values (the
  option is recorded in ``rules_id``; the records have no flower column).
- The bots declare every legal win, so a pass lock never arises in simulated play;
  ``pass_lock`` is recorded in ``rules_id`` and packed for the loop.
- 被跟 is fined when the fourth identical discard is made, even if that tile is then
  claimed or won on. 统包's 犯枪 point stays with the discarder. When 抢杠 and 统包 both
  name a payer, the robbed kong player pays. If the winner is in two 统包 pairs, his
  上家 pays.
- 财神会 (three 财神) counts on self-drawn wins including 杠上开花 and 天胡.
- The efficiency and value bots never discard a 财神 (under ``caishen_discard=penalty``
  only the random bot does, and pays the fine).

Payout options and re-scoring
-----------------------------
Re-scorable (``payout``, engine.runs.rescore): the 倍 of 清一色, 七对子, 不搭 (``pay_<pattern>``,
the 非自摸 value; 自摸 = ``pay_zimo_x`` x it), of 杠上开花, 财神会 and 抢杠 (one value
each), the plain 倍 (``pay_plain``) and the 自摸 multiplier (``pay_zimo_x``, also for
字一色 and 大对子), the 底 (``pay_base``, ``pay_base_step``, ``base_cap``), the 犯枪 and
被跟 fines (``pay_fanqiang``, ``pay_beigen``), the 被跟 rule (``beigen``), kong money
(``kong_pay``) and the 财神会 rule (``caishenhui``). 字一色, 大对子, 天胡 and 地胡 keep the
seed's 倍 (the kernels read them from the same packed table; they have no option because
the 2,000 efficiency deals of the exactness sweep never hold them). A re-score chooses
the reading paid again (standard, 七对子 or 不搭, from the ``score_in`` inputs), so pattern
flags may change; it cannot change who won, from whom, the wall, the claims or the 误打财神
fines: the 财神 options, ``caishen_discard``, ``reserve``, ``pass_lock`` and ``tiles`` are
play options (simulate them). ``value`` and ``strong`` read the payout table (their
target bonuses and win values are re-priced under a run's payouts, engine.runs.adapt),
so their records re-score to a first-order answer only (analysis.rescore_gap).

The strong policy
-----------------
``strong`` plays each discard for expected points. For every tile it could throw it
measures the distance of what is left to a plain hand and to each target (清一色, 混一色, 大对子,
七对子, 不搭), the ukeire of the closest, and turns them into points with tables fitted from the
engine's own play (``mjlab fit``, committed in ``engine/variants/lishui/strong.json``):
the chance to win from that distance, ukeire and live tiles, and what each kind of win
brings under this variant's scoring, dealer or not, plus the stake a seat loses when
someone else wins. Against that it weighs, per opponent, a logistic danger model of the
chance that the tile is won on now (his melds and their suits, the kinds he discarded
with their suji and neighbours, which of them came first and which last, the copies
unseen, the stage of the deal) times what
feeding costs beyond a bystander's payment (犯枪, and the dealer's 底 when he feeds or
wins), and the chance of being robbed of a 补杠 (抢杠: the kong player pays all three
shares): it folds to safe tiles when the hand is worth less than the danger. 碰, 吃 and
kongs are taken when the hand is worth more after them (with tuned biases). Its scalar
weights are tuned by self-play against ``value`` (``mjlab tune lishui --policy
strong``).
It does not: search beyond the current decision, read an opponent's hand value or pace
beyond the fitted features (his latest three discards and his first six are all it reads
of their order), plan several discards ahead (a target counts only through its
distance); it does not use 被跟 in its choices (paid as it falls). Of 统包 it weighs
only its own liability: a 吃 that would be its third from the same 上家 costs
``strong.tongbao`` (1.3 points, below), not the chance to make a 下家 liable to it.
"""

from __future__ import annotations

import numpy as np

from engine.mahjong import layout as L
from engine.mahjong import params as bot_layout

from .._base import HeadlineSweep, ReportBudget, RuleOption, Variant
from .._mahjong import engine_rules, strong_defaults
from .._registry import register
from .._scoring import melds8, pattern_names, settle_hand, win_context
from . import _kernels as K

BEI_RANGE = tuple(range(0, 33))
"""Allowed 倍 of a pattern (0 = worth nothing: a hand with no other pattern is plain)."""


SHAPE_PATTERNS = K.SHAPE_PATTERNS
"""The patterns with 自摸 / 非自摸 columns (declared beside the patterns, which the seed's
倍 tables are built from)."""

PAY_PATTERNS = (
    "qingyise", "ziyise", "qiduizi", "daduizi", "buda", "tianhu", "dihu", "gangkai",
    "caishenhui", "qianggang",
)  # fmt: skip
"""The patterns whose 倍 is an option (every pattern of the variant)."""

PAYOUT_PATTERN = {f"pay_{p}": p for p in PAY_PATTERNS}
"""The pattern each pattern-value option pays for: tests/engine/runs/test_rescore.py may find the
option idle only in a sample without that pattern (字一色, 大对子, 天胡 and 地胡 are rare
under efficiency play; tests/engine/variants/lishui/test_lishui.py pays them on worked hands)."""


def _pay_options() -> tuple[RuleOption, ...]:
    """The payout table as options: the 倍 of the patterns in PAY_PATTERNS, the plain 倍,
    the 自摸 multiplier, the 底 and the fines.
    """
    out = []
    for i, p in enumerate(K.PATTERNS):
        if p.name not in PAY_PATTERNS:
            continue
        if p.name in SHAPE_PATTERNS:
            doc = (
                f"倍 of {p.hanzi} on a discard or robbed-kong win (非自摸); self-drawn "
                "(自摸, with 杠上开花) it is pay_zimo_x times this. A win's 倍 is the sum of "
                "its patterns'."
            )
            default = int(K.BEI_FEI_ZIMO[i])
        else:
            doc = f"倍 of {p.hanzi}, added to the win's other patterns' (one value)."
            default = int(K.BEI_ZIMO[i])
        out.append(
            RuleOption(f"pay_{p.name}", default, BEI_RANGE, doc, "§1.5 rule 21", payout=True)
        )
    out += [
        RuleOption(
            "pay_plain",
            1,
            tuple(range(1, 9)),
            "倍 of a discard win with no special pattern (self-drawn: pay_zimo_x times this).",
            "§1.5 rule 20",
            payout=True,
        ),
        RuleOption(
            "pay_zimo_x",
            K.ZIMO_X,
            (1, 2, 3, 4),
            "自摸 column = this x the 非自摸 倍, for the plain win and the five shape patterns "
            "(清一色, 字一色, 七对子, 大对子, 不搭); the seed's table doubles.",
            "§1.5 rules 20-21",
            payout=True,
        ),
        RuleOption(
            "pay_base",
            3,
            tuple(range(1, 17)),
            "底 (points per 倍 between the dealer and another seat) with no dealer streak.",
            "§1.6 rule 24",
            payout=True,
        ),
        RuleOption(
            "pay_base_step",
            2,
            tuple(range(0, 9)),
            "底 added per consecutive dealer win (up to base_cap).",
            "§1.6 rule 24",
            payout=True,
        ),
        RuleOption(
            "pay_fanqiang",
            1,
            tuple(range(0, 9)),
            "犯枪: points the discarder pays the winner on top of his share.",
            "§1.6 rule 27",
            payout=True,
        ),
        RuleOption(
            "pay_beigen",
            1,
            tuple(range(0, 9)),
            "被跟 fine: points the first of four identical discards pays each other seat.",
            "§1.6 rule 30",
            payout=True,
        ),
    ]
    return tuple(out)


PAY_OPTIONS = _pay_options()
"""The payout-table options (pay_*), all re-scorable."""

OPTIONS = (
    RuleOption(
        "caishen",
        1,
        (0, 1, 2),
        "财神 kinds: 1 = the flipped indicator's own kind (3 live tiles); 2 = that kind and "
        "the next (7 live tiles); 0 = none (the 白板 are plain 白板). For sweeps.",
        "§1.2 rule 5; §0 rule 2",
    ),
    RuleOption(
        "caishen_indicator_live",
        False,
        (False, True),
        "The flipped indicator stays in the wall and can be drawn when reached (4 live 财神).",
        "§1.2 rule 5",
    ),
    RuleOption(
        "caishen_discard",
        "forbid",
        ("forbid", "penalty"),
        "forbid: a 财神 can never be discarded; penalty: it may be, the discard is dead "
        "and the discarder pays 1 to each other seat (误打财神).",
        "§1.2 rule 7",
    ),
    RuleOption(
        "tiles",
        136,
        (136, 144),
        "Tile set; 144 adds the 8 flowers as dead tiles replaced from the tail, no score "
        "(played exactly as 136: see Engine simplifications).",
        "§1.1 rule 2",
    ),
    RuleOption(
        "kong_pay",
        0,
        (0, 1, 2),
        "Kong money for sensitivity runs: n = 明杠 and 补杠 n from each other seat, 暗杠 2n "
        "from each; 0 = none (the seed).",
        "§1.3 rule 13",
        payout=True,
    ),
    RuleOption(
        "reserve",
        0,
        (0, 8, 14, 16, 20),
        "Live tiles left undrawn when the deal is declared drawn (0: play the wall out).",
        "§1.3 rule 14",
    ),
    RuleOption(
        "pass_lock",
        "lock",
        ("lock", "value", "none"),
        "After passing a discard win: lock = no discard win until one's next draw; value = "
        "only a more valuable one; none. (Bots never pass a win.)",
        "§1.3 rule 15",
    ),
    RuleOption(
        "caishenhui",
        "three",
        ("three", "drawn"),
        "财神会 (+4): three = a self-drawn win whose concealed hand holds 3 or more 财神; "
        "drawn = any self-draw completed by drawing a 财神.",
        "§1.5 rule 23",
        payout=True,
    ),
    RuleOption(
        "base_cap",
        "9",
        ("3", "5", "7", "9", "11", "13", "none"),
        "底 = 3 + 2 x the dealer's consecutive wins, capped at 9 (the seed; other caps for "
        "sweeps), or uncapped.",
        "§1.6 rule 24",
        payout=True,
    ),
    RuleOption(
        "beigen",
        "always",
        ("always", "first_round", "none"),
        "被跟 fine (first discarder pays 1 to each): any four identical discards in a row; "
        "first_round = only the deal's first four discards; none = off.",
        "§1.6 rule 30",
        payout=True,
    ),
) + PAY_OPTIONS

PATTERNS = K.PATTERNS
"""The scoring patterns, in bit order (declared with their detectors in the kernel module)."""

EXTRAS = K.EXTRAS
"""The extra record columns, in index order (declared with the kernels that write them):
every penalty's net money is inside ``delta_*``."""

SHAPES = ("standard", "seven_pairs", "buda")

BONUS = dict(flush=3, triplets=3)
"""Value-bot target bonuses in quarter tiles: 清一色 and 大对子 weigh 3/4 of a tile; 七对子
and 不搭 are shapes every bot already counts in its distance. Measured against the
efficiency bot (one value seat, three efficiency seats, same walls, N = 30,000 deals):
these bonuses change the value seat's mean result by +0.00 +- 0.01 points a deal, a
seven-pairs bonus costs -0.07 +- 0.03 and bonuses of 1.5 tiles cost -0.2: Lishui deals
are short (discard wins, 财神, 白板 stand-in), so speed dominates."""


BOT_TARGETS = dict(
    flush=("qingyise", "ziyise"), triplets=("daduizi",), pairs=("qiduizi",), buda=("buda",)
)
"""The patterns of each strong-policy target (engine.runs.fit)."""


def bot_params(policy, rules) -> dict:
    """Default bot parameters of ``policy`` (the value bot's target bonuses)."""
    if policy == "strong":
        # kong money (kong_pay n): 明杠 and 补杠 n from each other seat, 暗杠 2n from each;
        # feeding a 明杠 costs the feeder the n he pays
        n = float(rules["kong_pay"])
        return strong_defaults(
            tongbao=STRONG_TONGBAO, kong_an=6 * n, kong_add=3 * n, kong_ming=3 * n, feed_kong=n
        )
    return dict(BONUS, safe_ties=VALUE_SAFE_TIES) if policy == "value" else {}


STRONG_TONGBAO = 1.3
"""What the strong bot's third 吃 from the same 上家 costs it (``strong.tongbao``, 统包):
if that 上家 then wins, the chower also pays the two other losers' shares, about 5.5
points after a non-dealer's win and 10 after the dealer's (the fitted win values, 8.0 and
15.1, less the chower's own share), and the 上家 wins about one deal in five from there:
0.2 x 6.5 = 1.3. The chower's own wins pay him the same with or without 统包."""


VALUE_SAFE_TIES = 0.5
"""The value bot's defence (``value.safe_ties``): among its discards at the best distance,
an unseen copy fewer is worth half an ukeire. A win fed costs only 犯枪 (1) more than a
bystander's share, but it hands the winner a win he might not have made: by dealer, 20,000
deals per place, seed 2, value over efficiency is +0.038 [-0.001, +0.077] with it (deal-in
17.8% against 18.9%), +0.002 [-0.010, +0.014] without; 1.5 gives +0.018, 3 loses 0.061.
At 40,000 deals per place (``mjlab ladder lishui --policies efficiency,value --deals 40000
--seed 2``): +0.017 [-0.011, +0.045], still tied, with deal-in 0.9 points lower
[-1.1, -0.7]."""


def pack(rules) -> np.ndarray:
    """Packed int64 rules for the kernel."""
    n = rules["caishen"]
    r = engine_rules(
        kernel_id=K.KERNEL_ID,
        tileset=136,
        chow=True,
        discard_win=True,
        rob_kong=True,
        wild_mode=2 if n > 0 else 0,
        wild_kinds=n,
        indicator=1,
        indicator_live=rules["caishen_indicator_live"],
        standin=n > 0,
        wild_discard=0 if rules["caishen_discard"] == "forbid" else 2,
        wild_discard_fine=1,
        reserve=rules["reserve"],
        rot_win_next=True,
        rot_draw_next=True,
        shapes=SHAPES,
        pass_lock=rules["pass_lock"] != "none",
    )
    r[K.L_CAISHEN] = n
    r[K.L_BASE_CAP] = 0 if rules["base_cap"] == "none" else int(rules["base_cap"])
    r[K.L_CAISHENHUI] = 0 if rules["caishenhui"] == "three" else 1
    r[K.L_BEIGEN] = ("always", "first_round", "none").index(rules["beigen"])
    r[K.L_KONG_PAY] = rules["kong_pay"]
    r[K.L_PASS_LOCK] = ("lock", "value", "none").index(rules["pass_lock"])
    r[K.L_FANQIANG] = rules["pay_fanqiang"]
    r[K.L_BEIGEN_FINE] = rules["pay_beigen"]
    zimo, fei = bei_tables(rules)
    r[K.L_BEI_ZIMO : K.L_BEI_ZIMO + K.N_PATTERNS] = zimo
    r[K.L_BEI_FEI : K.L_BEI_FEI + K.N_PATTERNS] = fei
    r[K.L_PLAIN_ZIMO] = rules["pay_zimo_x"] * rules["pay_plain"]
    r[K.L_PLAIN_FEI] = rules["pay_plain"]
    r[K.L_BASE0] = rules["pay_base"]
    r[K.L_BASE_STEP] = rules["pay_base_step"]
    return r


def bei_tables(rules) -> tuple[np.ndarray, np.ndarray]:
    """The 倍 of each pattern (bit order) on a self-drawn and on another win."""
    zimo = K.BEI_ZIMO.copy()
    fei = K.BEI_FEI_ZIMO.copy()
    x = rules["pay_zimo_x"]
    for i, p in enumerate(K.PATTERNS):
        if p.name in SHAPE_PATTERNS:
            fei[i] = rules.get(f"pay_{p.name}", fei[i])
            zimo[i] = x * fei[i]
        elif p.name in PAY_PATTERNS:
            zimo[i] = fei[i] = rules[f"pay_{p.name}"]
    return zimo, fei


def _standin(counts, melds, wild_kinds):
    """Map the 白板 of a hand and its melds to the 财神's kind (白板代财神)."""
    counts = np.asarray(counts, np.int64).copy()
    melds = np.asarray(melds, np.int64).reshape(-1, 3).copy()
    if wild_kinds and wild_kinds[0] != 31:
        k = wild_kinds[0]
        counts[k] += counts[31]
        counts[31] = 0
        for m in melds:
            if m[0] != L.M_CHOW and m[1] == 31:
                m[1] = k
    return counts, melds


def score_hand(
    rules,
    counts,
    wilds,
    melds,
    win_kind,
    win_type,
    seat,
    dealer,
    streak,
    flags,
    discarder=None,
    wild_kinds=(),
    **_,
):
    """Score one winning hand (the ``mjlab score`` calculator).

    Parameters
    ----------
    rules : mapping
        Resolved options (:meth:`Variant.resolve`).
    counts : array_like (34,)
        Concealed tiles with the winning tile, 财神 removed. With ``wild_kinds`` given
        (``--wild``, the 财神 first) the 白板 are mapped to the 财神's kind, as in play;
        without it the counts are taken as already logical.
    wilds : int
        财神 held (including a self-drawn winning 财神).
    melds : array_like (n, 3)
        Exposed melds (type, kind, from seat) as engine.variants._scoring.parse_melds.
    win_kind : int
        Kind of the winning tile, -1 when it is a 财神 (for ``caishenhui=drawn``).
    win_type : int
        engine.mahjong.layout WIN_* code (self-draw, discard, rob_kong, kong_draw).
    seat, dealer : int
        The winner's and the dealer's seats.
    streak : int
        The dealer's consecutive wins before this deal (底 = 3 + 2 x streak, capped).
    flags : set of str
        ``tianhu`` (dealer's first fourteen), ``dihu`` (a non-dealer's first draw),
        ``tongbao`` (the winner chowed his 上家's discards three times: the 上家 pays all),
        ``tongbao_xiajia`` (the winner's 下家 chowed his discards three times).
    discarder : int, optional
        The discarder (discard win) or the robbed kong player (rob_kong).

    Returns
    -------
    dict
        ``complete``, ``patterns`` (names), ``value`` (倍), ``base`` (底) and
        ``deltas`` (points per seat, zero-sum).
    """
    from ...errors import UsageError
    from ...hand import is_complete
    from ...hand._tables import kernel_tables

    unknown = set(flags) - {"tianhu", "dihu", "gangkai", "qianggang", "tongbao", "tongbao_xiajia"}
    if unknown:
        raise UsageError(f"lishui: unknown flag(s) {', '.join(sorted(unknown))}")
    if "tianhu" in flags and seat != dealer:
        raise UsageError("lishui: tianhu is the dealer's win (--seat = --dealer)")
    if "dihu" in flags and seat == dealer:
        raise UsageError("lishui: dihu is a non-dealer's win (--seat != --dealer)")
    if win_type in (L.WIN_DISCARD, L.WIN_ROB_KONG) and discarder is None:
        raise UsageError("lishui: a discard or robbed-kong win needs the feeding seat (--from)")
    counts, melds = _standin(counts, melds, list(wild_kinds))
    sets = 4 - len(melds)
    try:
        complete = bool(is_complete(counts.astype(np.uint8), wilds, sets, SHAPES))
    except ValueError as exc:
        raise UsageError(f"lishui: {exc}") from None
    out = {"complete": complete, "patterns": [], "value": 0, "base": 0, "deltas": [0, 0, 0, 0]}
    if not complete:
        return out
    r = pack(rules)
    ctx = win_context(seat, dealer, win_type, melds, feeder=discarder, flags=flags)
    ctx[L.X_STREAK] = streak
    ctx[L.X_DEALER_WINS] = streak
    w0 = wild_kinds[0] if len(wild_kinds) else (0 if wilds > 0 else -1)
    ctx[L.X_WILD0] = w0 if rules["caishen"] > 0 or wilds > 0 else -1
    ctx[L.X_WILD1] = wild_kinds[1] if len(wild_kinds) > 1 else -1
    ctx[L.X_WIN_PHYS] = ctx[L.X_WILD0] if win_kind == -1 else win_kind
    if "tongbao" in flags:
        up = (seat + 3) % 4
        ctx[L.X_CHOWS + 4 * seat + up] = 3
    if "tongbao_xiajia" in flags:
        down = (seat + 1) % 4
        ctx[L.X_CHOWS + 4 * down + seat] = 3
    tab = kernel_tables()
    bits = int(
        K.patterns(r, ctx, counts.astype(np.int64), wilds, sets, melds8(melds), len(melds), tab)
    )
    value, out["deltas"], extra = settle_hand(K.settle, r, ctx, bits)
    out["patterns"] = pattern_names(PATTERNS, bits)
    out["value"] = value
    out["base"] = int(extra[K.E_BASE])
    return out


def _buda_counts(copies, n_wild: int) -> list[int]:
    """Hands of 14 tiles complete as 不搭 by the number of 财神 held (0..n_wild).

    ``copies`` (34,) are the plain (non-wild) copies per kind. A 不搭 hand's real tiles are
    all different, so the hand is a choice of rank sets per suit, of honors and of 财神;
    it is complete when the real tiles all fit one 14-tile 不搭 frame (engine.hand
    ``_buda``: per suit a gap->=3 rank set of t tiles, t <= 3, plus at most 7 honors).
    """
    from math import comb

    from ...hand._tables import kernel_tables

    buda_t = kernel_tables()[4]
    groups = []  # per suit: {(size, fits bit mask over t = 0..3): weight}
    for s in range(3):
        g: dict[tuple[int, int], int] = {}
        for m in range(512):
            ranks = [r for r in range(9) if (m >> r) & 1]
            weight = 1
            for r in ranks:
                weight *= int(copies[9 * s + r])
            if weight == 0:
                continue
            fits = sum(1 << t for t in range(4) if int(buda_t[m, t]) == len(ranks))
            if fits:
                key = (len(ranks), fits)
                g[key] = g.get(key, 0) + weight
        groups.append(g)
    honors = [0] * 8  # elementary symmetric sums of the honor copies
    honors[0] = 1
    for k in range(27, 34):
        q = int(copies[k])
        for j in range(7, 0, -1):
            honors[j] += honors[j - 1] * q
    out = [0] * (n_wild + 1)
    for (n0, f0), w0 in groups[0].items():
        for (n1, f1), w1 in groups[1].items():
            for (n2, f2), w2 in groups[2].items():
                for nh in range(8):
                    n = n0 + n1 + n2 + nh
                    w = 14 - n
                    if not 0 <= w <= n_wild or honors[nh] == 0:
                        continue
                    ok = any(
                        (f0 >> t0) & 1
                        and (f1 >> t1) & 1
                        and (f2 >> t2) & 1
                        and nh <= 14 - t0 - t1 - t2 <= 7
                        for t0 in range(4)
                        for t1 in range(4)
                        for t2 in range(4)
                    )
                    if ok:
                        out[w] += w0 * w1 * w2 * honors[nh] * comb(n_wild, w)
    return out


def tianhu_decks(rules) -> list[tuple]:
    """The decks the dealer's fourteen come from: ``[(probability, copies, wild_kinds)]``.

    The indicator is one of the 136 tiles (its kind with probability copies/136) and the
    hand is dealt from the other 135. The 白板 stand-in is a relabelling: the 4 白板 are
    the plain copies of the 财神's kind and the kind 白板 is empty, so a deck is written
    with the 财神's three live tiles on kind 5z (``copies[31] = 3`` wild) and the 财神's
    kind at 4 plain copies - the same deck whatever kind the indicator is, also when it is
    白板 itself (then there is no stand-in and 5z holds the 3 live 财神). Whether the
    indicator stays live changes nothing here: it is not in the dealt hand either way.
    """
    from fractions import Fraction

    from ... import tiles as _tiles

    n = rules["caishen"]
    full = np.full(34, 4, np.int64)
    if n == 0:
        return [(Fraction(1), full, [])]
    if n == 1:
        c = full.copy()
        c[31] = 3
        return [(Fraction(1), c, [31])]
    out = []
    for ind in range(34):
        nxt = _tiles.next_kind(ind)
        c = full.copy()
        if ind == 31:  # 白 is the 财神 (3 live), 中 the second kind (4): no stand-in
            c[31] = 3
            kinds = [31, nxt]
        elif nxt == 31:  # 发 (3 live) and 白 (4) are the 财神: no stand-in
            c[ind] = 3
            kinds = [ind, 31]
        else:  # 白板 play as the indicator's kind: relabel as above; nxt has 4 wild copies
            c[31] = 3
            kinds = [31, nxt]
        out.append((Fraction(4, 136), c, kinds))
    return out


def exact_tianhu(rules) -> dict:
    """天胡 (the dealer's first fourteen win) exactly, under the options ``rules``.

    Returns ``{"tianhu", "tianhu_standard_or_qiduizi", "tianhu_buda", "note"}``: the
    probability (Fraction), its part complete in the standard shape or as 七对子, the part
    complete only as 不搭, and how the 白板 stand-in is counted.

    Method: engine.exact.hand_counts for the standard shape and 七对子 on each deck of
    :func:`tianhu_decks`; 不搭 by :func:`_buda_counts`. A 不搭 hand holding at most six 财神
    is never complete in another shape (each set or pair holds at most one of its real
    tiles), and with seven or more 财神 (two kinds) it is also 七对子, so the parts add up.
    """
    from fractions import Fraction
    from math import comb

    from ...exact import hand_counts

    rules = VARIANT.resolve(rules)
    p_std = Fraction(0)
    p_buda = Fraction(0)
    for prob, copies, kinds in tianhu_decks(rules):
        total = comb(int(copies.sum()), 14)
        n = hand_counts(copies, 14, kinds, ("standard", "seven_pairs"))
        good = sum(n[w][d] for w in range(len(n)) for d in range(min(w, len(n[w]) - 1) + 1))
        plain = copies.copy()
        plain[kinds] = 0
        buda = _buda_counts(plain, int(copies[kinds].sum()))
        p_std += prob * Fraction(good, total)
        p_buda += prob * Fraction(sum(buda[:7]), total)
    return {
        "tianhu": p_std + p_buda,
        "tianhu_standard_or_qiduizi": p_std,
        "tianhu_buda": p_buda,
        "note": (
            "the 4 白板 count as plain tiles of the 财神's kind and the kind 白板 is empty "
            "(白板代财神), so the deck is the same for every indicator: 3 live 财神 (2 kinds: "
            "7), 33 plain kinds of 4; the indicator is never in the dealt hand, live or not"
        ),
    }


VARIANT = register(
    Variant(
        name="lishui",
        long_name="丽水麻将 Lishui (财神, 白板代财神)",
        # its bonuses are constants, not the payout options: its re-scores are exact
        version=2,
        family="mahjong",
        bot_layout=bot_layout,
        options=OPTIONS,
        patterns=PATTERNS,
        extras=EXTRAS,
        pack=pack,
        value_unit="倍",
        doc=__doc__,
        bench_deals=200_000,
        rulebook_section="§1",
        hooks=K,
        exact=exact_tianhu,
        score_hand=score_hand,
        score_flags=("tianhu", "dihu", "gangkai", "qianggang", "tongbao", "tongbao_xiajia"),
        bot_params=bot_params,
        bot_targets=BOT_TARGETS,
        payout_pattern=PAYOUT_PATTERN,
        report_budget=ReportBudget(
            main=80_000,
            sweep=32_000,
            skill=12_800,
            sensitivity_skill=4_000,
        ),
        headline_sweeps=(HeadlineSweep(("caishen",), "财神 (wildcard) count"),),
        # a seat's match result has an SD of about 29 倍 (16 deals, value bots)
        stated_amounts=(25, 50, 100),
    )
)
