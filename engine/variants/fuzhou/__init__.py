"""福州麻将 (fuzhou): Fuzhou mahjong - 144 tiles, flowers, 16-tile hands, 金, 抢金, 三金倒.

Rules
-----
RULEBOOK §3 (seed ``002_f8fbd002ca6459f4.txt``):

- 144 tiles; the 28 honors and f1..f8 are flowers (36), only the 108 suited tiles are
  played. Dealer 17, others 16; a win is five sets and a pair (no 七对, no 十三幺).
- 补花 at the deal in rounds from the tail, dealer first; a seat that drew no new flower
  skips the later rounds. During play a drawn flower is replaced at once from the tail.
- 开金 after 补花: the last tile is turned; a flower goes to the dealer and the next one
  is turned. The indicator is dead; the other three of its kind are the golds (金),
  wild in the winning hand only, never in 吃/碰/杠. A discarded gold cannot be claimed
  or won, and its discarder may only win by self-draw for the rest of the deal.
- 吃 by the next seat only; 碰/杠 by anyone; 胡 > 碰 = 杠 > 吃; one winner per discard,
  the nearest in turn order, except that a 金雀 win beats nearer seats. A 补杠 can be
  robbed (a discard win by the kong player).
- Opening wins, in priority order: 天胡 (the dealer's 17 tiles), 三金倒 (a seat holding
  the three golds), 抢金 by a non-dealer (his 16 tiles and the indicator, nearest to
  the dealer first), 抢金 by the dealer (he discards one tile and takes the indicator).
  三金倒 also wins at once whenever a seat draws its third gold. 地胡: a non-dealer wins
  on the dealer's first discard.
- Reserve: 18 tiles + 1 per 明杠 + 2 per 暗杠 + 2 per set of four identical flowers.
  The last group of (at most) four drawable tiles is drawn in turn with no discards
  and no 补花; a tile that completes a hand wins automatically as a self-draw; else
  the deal is drawn (no payments).
- Scoring (default QQ/同城游): X = (5 + 花番 + 金 + 连庄数) × 2 + the single largest
  special (天胡 30, 地胡 30, 抢金 30, 平胡无花无杠 30, 平胡一张花 15, 三金倒 40, 金雀 60,
  金龙 120). 花番 = flowers (a set of four alike, 春夏秋冬 or 梅兰竹菊 counts 6) + 明杠 +
  2·暗杠; 金 = golds in the winning hand. A discard win is paid X by the discarder, a
  self-draw (三金倒, 抢金, 天胡, last-group wins included) X by each other seat.
  Options ``scoring=xinxiuding`` and ``scoring=multiplier`` (RULEBOOK §3.5 rule 22),
  ``youjin=minnan`` (§3.4 rule 19), ``draw_adds_lianzhuang`` (§3.5 rule 23), ``jin``
  (the wildcard-count sweep, §0.2).
- 连庄数 = the dealer's consecutive wins before this deal (the first win is 站顶); it
  enters X for whoever wins. The dealer keeps the deal on his win or a draw, else the
  dealer's 下家 deals.

Payout options (re-scoring)
---------------------------
``scoring``, ``draw_adds_lianzhuang`` and the ``pay_*`` options change only what a deal
pays, so recorded deals are paid again under them (``mjlab rescore``, engine.runs.rescore):
``pay_base_<formula>`` (the 底 of X: qq 5, xinxiuding 1, multiplier 1), each special's
value under each formula (``pay_<special>_<formula>``: 番 added to X for qq and
xinxiuding, × X for multiplier; only the largest counts) and the 游金 multipliers
(``pay_danyou`` 4, ``pay_shuangyou`` 8, ``pay_sanyou`` 16, under ``youjin=minnan``). The
records carry what they read: the pattern flags, ``huafan``, ``golds``, ``dealer_streak``
and ``dealer_wins`` (连庄数 without or with the kept draws). No bot reads them (the value
and strong bots' parameters are fixed numbers tuned under the defaults), so a re-score
of any policy's records equals a fresh simulation; the bots are just not re-tuned to
the new values. A re-score cannot change ``jin``
(the golds) or ``youjin`` (游金 changes who may win on what): simulate those. Most of
the options are idle under the default rules (the other formulas' tables, 地胡 under
``jin=1``, 游金 under ``youjin=none``); they pay as soon as their formula or rule is on.

Engine simplifications
----------------------
- The first dealer of each match is drawn at random; tiles are dealt one seat at a time
  (the same distribution as dealing in blocks from a shuffled wall).
- A flower turned at 开金 goes to the dealer's flowers without a replacement tile (his
  hand stays at 17).
- The set-aside indicator lies on the reserved tail and counts as one of the 18 reserved
  tiles (17 live tiles are kept back before kongs and flower sets).
- 抢金 takes the indicator as a gold (wild): a non-dealer wins with any waiting hand;
  the dealer discards the first tile (in kind order) that leaves his hand complete
  with it. The robbed indicator counts among the winner's golds (金) but not toward
  三金倒 (「上手有两张金牌,不能以胡三金倒的胡型来抢金」).
- A win that also holds three golds records 三金倒 as a pattern; 金雀 and 金龙 are
  recorded whenever some reading of the winning hand has them; only the largest
  special is paid. Opening order 天胡 > 三金倒 > 抢金 is ours (the seed orders only
  天胡 > 闲家抢金 > 庄家抢金).
- A kong is declared only when a replacement tile beyond the raised reserve is left; a
  flower drawn when no replacement is left ends the deal as a draw (very rare).
  Flowers drawn in the last group are dead (they stay with the drawer).
- With ``jin=2`` the kind after the indicator's is gold too (3 + 4 golds); 三金倒 is
  then any three golds (27% of deals hold three at the opening).
- With 金 in play 地胡 cannot happen: a non-dealer waiting at the deal always wins first
  by 抢金 (the indicator taken as a gold completes any waiting hand); it needs ``jin=0``.
- ``turns`` counts draws from the wall and kong replacements; flower replacements are
  not counted (a flower drawn in the last group is, as a turn).
- ``youjin=minnan``: a seat whose discard leaves complete sets and a lone gold 游s; it
  wins on its next self-draw (×4), and when it draws a gold it discards it to go up to
  双游 (×8) / 三游 (×16); the efficiency and value bots prefer 游金 to a plain win when
  they can; while anyone 游s no one wins on a discard and the 游ing seat makes no claim.
- The value bot keeps golds (it discards one only when nothing else is left) and passes
  a win on a discard to wait for a self-draw (paid X by every other seat instead of by
  the discarder alone) while its outs times the live tiles beyond the reserve reach its
  ``pass_self``; it can keep a 金雀 shape (two golds as the pair) with a bonus and pass
  a plain win for a 金雀 wait (``wild_pair``, ``chase_min_live``). Its parameters are
  tuned by self-play against ``efficiency`` in duplicate seating by place from the
  dealer (``mjlab tune fuzhou --policy value --seating dealer``, committed in
  ``engine/variants/fuzhou/value.json``). It does not wait for 金龙 (one third gold
  among ~50 unseen tiles is worth less than the win in hand): 金龙 comes from 三金倒
  hands that also read as 金龙.

The strong policy
-----------------
``strong`` plays each discard for expected points. For every tile it could throw it measures
the distance of what is left to a plain hand and to each target (清一色, 混一色, 对对胡 and the 金雀
wild pair; under ``youjin=minnan`` the wild target is the 游金 shape, complete sets with one
gold left free, which wins on any draw at ×4), the ukeire of the closest, and turns them
into points with tables fitted from the engine's own play (``mjlab fit``, committed in
``engine/variants/fuzhou/strong.json``): the chance to win from that distance, ukeire and
live tiles, and what each kind of win brings under this variant's scoring, dealer or not,
plus the stake a seat loses when someone else wins. Against that it weighs, per opponent, a
logistic danger model of the chance that the tile is won on now (his melds and their suits,
the kinds he discarded with their suji and neighbours and their order, the copies unseen,
the stage, the golds) times what feeding costs (the discarder pays X alone), and the chance
of being robbed of a 补杠: it folds to safe tiles when the hand is worth less than the danger.
碰, 吃 and kongs are taken when the hand is worth more after them (with tuned biases); like
``value`` it keeps golds, passes a discard win for a self-draw (``pass_self``) and a plain
win for a 金雀 wait while more live tiles than its ``chase_min_live`` remain. Its scalar
weights are tuned by self-play against ``value`` (``mjlab tune fuzhou --policy strong
--seating dealer``). It does not: search beyond the current decision, read an opponent's
hand value or pace beyond the fitted features (his latest three discards and his first six
are all it reads of their order), plan several discards ahead (a target counts only through
its distance); it goes up to 双游 / 三游 only by the bots' shared 游金 rule, and does not wait
for 金龙.
"""

from __future__ import annotations

from fractions import Fraction
from math import comb

import numpy as np

from engine.mahjong import layout as L
from engine.mahjong import params as bot_layout

from .._base import HeadlineSweep, ReportBudget, RuleOption, Variant
from .._mahjong import engine_rules, strong_defaults
from .._registry import register
from .._scoring import melds8, pattern_names, settle_hand, win_context
from . import _kernels as K

SCORING = ("qq", "xinxiuding", "multiplier")
YOUJIN = ("none", "minnan")

_LISTING = {
    "qq": ("tianhu", "dihu", "qiangjin", "wuhua", "yizhanghua", "sanjindao", "jinque", "jinlong"),
    "xinxiuding": ("sanjindao", "qiangjin", "jinque", "tianhu"),
    "multiplier": ("sanjindao", "jinque", "qiangjin", "jinlong"),
}
"""The order each formula's ``pay_<special>_<formula>`` options are listed in (the
RULEBOOK's), kept so that the resolved options, which the record files' metadata holds in
option order, keep their order; a special not listed here follows in bit order. It holds
no value: those are declared on the patterns."""


def _specials() -> dict[str, dict[str, int]]:
    """Each formula's specials and their values, from the patterns' ``values``."""
    out: dict[str, dict[str, int]] = {f: {} for f in SCORING}
    for p in K.PATTERNS:
        for formula, value in p.values:
            if formula not in out:
                raise ValueError(f"pattern {p.name!r} prices unknown formula {formula!r}")
            out[formula][p.name] = value

    def rank(formula, name):
        listed = _LISTING.get(formula, ())
        return listed.index(name) if name in listed else len(listed) + K.BIT[name]

    return {f: dict(sorted(t.items(), key=lambda kv, f=f: rank(f, kv[0]))) for f, t in out.items()}


SPECIALS = _specials()
"""Special wins by formula (RULEBOOK §3.5 rules 21-22): additive 番 (qq, xinxiuding) or a
multiplier (multiplier); only the largest counts. From the patterns' ``values``."""

_YOU = ("danyou", "shuangyou", "sanyou")
YOUJIN_MULT = tuple(K.PATTERNS[K.BIT[n]].value for n in _YOU)
"""单游, 双游, 三游 multipliers of X under ``youjin=minnan`` (the patterns' ``value``)."""

BASES = {"qq": 5, "xinxiuding": K.XINXIUDING_BASE, "multiplier": 1}
"""Each formula's constant 底 in X (RULEBOOK §3.5 rule 22): QQ's 5, 新修订's 底番 1, the
multiplier formula's 1."""

_HANZI = {p.name: p.hanzi for p in K.PATTERNS}
_UNIT = {"qq": "番 added to X", "xinxiuding": "番 added to X", "multiplier": "× X"}
_SPECIAL_RANGE = {
    "qq": tuple(range(0, 241)),
    "xinxiuding": tuple(range(0, 121)),
    "multiplier": tuple(range(1, 17)),
}


def _pay_options() -> tuple[RuleOption, ...]:
    """The payout options of the scoring table: each formula's 底, each special under each
    formula, the 游金 multipliers (their defaults are today's values).
    """
    out = []
    for formula, base in BASES.items():
        out.append(
            RuleOption(
                f"pay_base_{formula}",
                base,
                tuple(range(0, 21)),
                f"The constant 底 of X under scoring={formula} (番, default {base}): X = (底 + "
                "花番 + 金 + 连庄数) × the formula's factor, then its special.",
                "§3.5 rule 22",
                payout=True,
            )
        )
    for formula, table in SPECIALS.items():
        for name, value in table.items():
            out.append(
                RuleOption(
                    f"pay_{name}_{formula}",
                    value,
                    _SPECIAL_RANGE[formula],
                    f"{_HANZI[name]} under scoring={formula}: {_UNIT[formula]} (default "
                    f"{value}); only the largest special of a hand counts.",
                    "§3.5 rule 22",
                    payout=True,
                )
            )
    for name, mult in zip(_YOU, YOUJIN_MULT, strict=True):
        out.append(
            RuleOption(
                f"pay_{name}",
                mult,
                tuple(range(1, 65)),
                f"{_HANZI[name]} multiplier of X under youjin=minnan (default ×{mult}).",
                "§3.4 rule 19",
                payout=True,
            )
        )
    return tuple(out)


PAY_OPTIONS = _pay_options()

OPTIONS = (
    RuleOption(
        "jin",
        1,
        (0, 1, 2),
        "金 (wildcard) kinds: 1 = the indicator's own kind (3 live golds, the indicator "
        "dead); 2 = also the next kind (3 + 4 golds); 0 = no 金 (no 开金, 抢金, 三金倒, 金雀, "
        "金龙), for the wildcard sweep.",
        "§0.2; §3.2 rule 5",
    ),
    RuleOption(
        "scoring",
        "qq",
        SCORING,
        "qq = QQ/同城游: X = (5 + 花番 + 金 + 连庄数) × 2 + the largest special (天胡/地胡/抢金/"
        "平胡无花 30, 平胡一张花 15, 三金倒 40, 金雀 60, 金龙 120), discarder pays X, self-draw "
        "each pays X; xinxiuding = (底番 1 + 花番 + 金 + 连庄数) × (2 on self-draw) + 三金倒 10 "
        "/ 抢金 20 / 金雀 30 / 天胡 40, all three pay on every win; multiplier = (1 + 花番 + 金 + "
        "连庄数) × (2 on self-draw) × 三金倒 3 / 金雀 4 / 抢金 5 / 金龙 6, paid as qq. The "
        "numbers are the defaults of the pay_base_<formula> and pay_<special>_<formula> "
        "options.",
        "§3.5 rules 21-22",
        payout=True,
    ),
    RuleOption(
        "youjin",
        "none",
        YOUJIN,
        "游金 (闽南, not in 福州 rules): minnan = after a discard leaving complete sets and a "
        "lone gold the seat 游s, wins only by self-draw, and a drawn gold discarded raises "
        "单游 ×4 to 双游 ×8 and 三游 ×16 (× X); nobody wins on a discard while anyone 游s.",
        "§3.4 rule 19",
    ),
    RuleOption(
        "draw_adds_lianzhuang",
        False,
        (False, True),
        "A drawn deal (the dealer keeps the deal) also adds one to 连庄数.",
        "§3.5 rule 23",
        payout=True,
    ),
    *PAY_OPTIONS,
)

PATTERNS = K.PATTERNS
"""The scoring patterns, in bit order (declared with their detectors in the kernel module)."""

EXTRAS = K.EXTRAS
"""The extra record columns, in index order (declared with the kernels that write them)."""

RESCORE_CONTEXT = {
    **{f"pay_base_{f}": {"scoring": f} for f in ("xinxiuding", "multiplier")},
    **{f"pay_{n}_{f}": {"scoring": f} for f in ("xinxiuding", "multiplier") for n in SPECIALS[f]},
    **{f"pay_{n}": {"youjin": "minnan"} for n in _YOU},
    "pay_dihu_qq": {"jin": 0},
}
"""The rules under which each payout option that is idle under the defaults pays (its
formula, 游金, or 地胡's jin=0): a re-score test of it plays there."""

PAYOUT_PATTERN = {
    **{f"pay_{n}_{f}": n for f, table in SPECIALS.items() for n in table},
    **{f"pay_{n}": n for n in _YOU},
}
"""The pattern each pattern-value option pays for: it can move no payment in a sample
without that pattern (the re-score tests check that an idle option's pattern is absent)."""

VALUE_BOT_JINQUE = 0
"""Value-bot bonus for 金雀 in quarter tiles (at most two tiles away). 0: measured in
duplicate seating by place from the dealer (value over efficiency, 20,000 deals per
place, seed 2), a bonus of 4-6 costs the value bot 0.2 points per deal (it keeps 金雀
shapes that slow the hand) and 1-3 changes no decision."""

VALUE_BOT_CHASE = 0
"""The value bot passes a plain win for a 金雀 wait while more than this many live tiles
beyond the reserve remain. 0 (never): passing for 金雀 at 8 cost 0.11 points per deal and
at 30 0.03 (the same measurement)."""

BOT_PASS_SELF = 300
"""Value and strong bots pass a win on a discard to wait for a self-draw while its outs
times the live tiles beyond the reserve reach this (engine.mahjong.params
``value.pass_self``). A self-draw is paid X by every other seat, a discard win by the
discarder alone, so a good wait early in the deal is worth more undeclared. Measured as
above: value over efficiency +0.18 points per deal at 200, +0.53 [+0.44, +0.61] at 300,
+0.52 at 350, +0.46 at 450 (the RULEBOOK has no pass lock in 福州, so a passed win may be
taken on a later discard)."""


BOT_TARGETS = dict(wild_pair=("jinque", "danyou", "shuangyou", "sanyou"))
"""The patterns of each strong-policy target (engine.runs.fit). The wild target is 金雀
(two golds as the pair) and, under ``youjin=minnan``, the 游金 shape it measures there
(one gold left free, engine.mahjong.strong.WILDS_FREE), whose wins are 单游, 双游, 三游."""


def bot_params(policy, rules) -> dict:
    """Default bot parameters of ``policy`` (金雀 bonus and chase, passing a discard win
    for a self-draw; the committed tuned files override them).
    """
    if policy == "strong":
        return strong_defaults(
            chase_min_live=float(VALUE_BOT_CHASE if rules["jin"] else 0),
            pass_self=float(BOT_PASS_SELF),
        )
    if policy != "value":
        return {}
    jin = int(rules["jin"])
    return dict(
        wild_pair=VALUE_BOT_JINQUE if jin else 0,
        chase_min_live=VALUE_BOT_CHASE if jin else 0,
        pass_self=BOT_PASS_SELF,
    )


def pack(rules) -> np.ndarray:
    """Packed int64 rules for the kernel."""
    jin = int(rules["jin"])
    r = engine_rules(
        kernel_id=K.KERNEL_ID,
        tileset=144,
        sets=5,
        chow=True,
        discard_win=True,
        rob_kong=True,
        wild_mode=2 if jin else 0,
        wild_kinds=jin,
        indicator=2,
        indicator_live=False,
        wild_discard=1,
        wild_discard_selfdraw=True,
        reserve=18,
        rot_win_next=True,
        rot_draw_next=False,
        shapes=("standard",),
    )
    r[L.R_HONOR_FLOWERS] = 1
    r[L.R_FLOWER_REPLACE] = 1
    r[L.R_RESERVE_KONG] = 1
    r[L.R_RESERVE_ANKONG] = 2
    r[L.R_RESERVE_QUAD] = 2
    r[L.R_RESERVE_INDICATOR] = 1 if jin else 0
    r[L.R_LAST_GROUP] = 4
    r[L.R_INSTANT_WILDS] = K.SANJIN if jin else 0
    r[L.R_OPENING] = 1
    # 连庄数 under draw_adds_lianzhuang is read by the settlement from the streak
    # (K.F_DRAW_ADDS), so the engine's dealer-win count stays the wins alone: the records
    # keep both (lianzhuang, dealer_wins) and a re-score can go either way.
    r[L.R_DRAW_ADDS_WINS] = 0
    r[L.R_KONG_NEEDS_LIVE] = 1
    r[L.R_YOUJIN] = int(rules["youjin"] == "minnan")
    r[L.R_WIN_PRIORITY] = 1
    formula = rules["scoring"]
    r[K.F_FORMULA] = SCORING.index(formula)
    r[K.F_JIN] = jin
    r[K.F_DRAW_ADDS] = int(rules["draw_adds_lianzhuang"])
    r[K.F_BASE] = rules[f"pay_base_{formula}"]
    for name in SPECIALS[formula]:
        r[K.F_SPECIAL + K.BIT[name]] = rules[f"pay_{name}_{formula}"]
    if rules["youjin"] == "minnan":
        for i, name in enumerate(_YOU):
            r[K.F_YOU_MULT + i] = rules[f"pay_{name}"]
    return r


def _flower_counts(flowers) -> tuple[int, int, int]:
    """(flower tiles, sets of four alike, 春夏秋冬/梅兰竹菊 suites) from ``flowers``.

    ``flowers`` is an int (that many single flowers, no sets), notation such as
    ``"1111z f1f2f3f4 5z"`` (honors and f1..f8), or an array of physical counts (42,).
    """
    from ... import tiles
    from ...errors import UsageError

    if flowers is None:
        return 0, 0, 0
    if isinstance(flowers, int | np.integer):
        if flowers < 0:
            raise UsageError(f"flowers must be >= 0, got {flowers}")
        return int(flowers), 0, 0
    if isinstance(flowers, str):
        if not flowers.strip():
            return 0, 0, 0
        try:
            counts, fl = tiles.parse(flowers, flowers=True)
        except ValueError as exc:
            raise UsageError(f"flowers: {exc}") from None
        if counts[:27].any():
            raise UsageError("flowers: only honors (1z..7z) and f1..f8 are flowers in fuzhou")
        phys = np.concatenate([counts.astype(np.int64), fl.astype(np.int64)])
    else:
        phys = np.asarray(flowers, np.int64)
        if phys.shape != (L.N_PHYS,):
            raise UsageError(f"flowers: expected {L.N_PHYS} physical counts")
    n = int(phys.sum())
    quads = int((phys[27:34] == 4).sum())
    suites = int(all(phys[34:38] > 0)) + int(all(phys[38:42] > 0))
    return n, quads, suites


_WIN_TYPES = {name: i for i, name in enumerate(L.WIN_TYPE_NAMES)}


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
    flags=(),
    discarder=None,
    flowers=0,
    **_,
):
    """Score one winning hand under ``rules`` (the ``mjlab score`` calculator).

    Parameters
    ----------
    rules : dict
        Resolved options (:meth:`Variant.resolve`).
    counts : array (34,)
        Concealed logical tiles including the winning tile, golds excluded.
    wilds : int
        Golds in the hand (the robbed indicator included under ``qiangjin``).
    melds : array (n, 3)
        Exposed melds ``(type, kind, from seat)`` (engine.mahjong.layout M_*).
    win_kind : int
        Winning tile kind (-1 for a gold); informational.
    win_type : int or str
        engine.mahjong.layout WIN_* code or its name (``self_draw``, ``discard``,
        ``rob_kong``, ``kong_draw``, ``instant``).
    seat, dealer : int
        The winner and the dealer.
    streak : int
        连庄数 (the dealer's consecutive wins before this deal).
    flags : set of str
        Context: ``tianhu`` (opening win of the dealer), ``dihu`` (on the dealer's first
        discard), ``qiangjin`` (took the indicator; implies an instant win),
        ``sanjindao`` (instant win on three golds), ``danyou`` / ``shuangyou`` /
        ``sanyou`` (游金 level), ``qianggang`` (robbed 补杠; with ``discarder``).
    discarder : int, optional
        The seat that fed a discard or robbed-kong win.
    flowers : int, str or array
        The winner's flowers: a count, notation (``"1111z f1f2f3f4"``) or (42,) counts.

    Returns
    -------
    dict
        ``complete`` (bool), ``patterns`` (names), ``value`` (X, per payer), ``deltas``
        (four seats), ``special`` (the special counted), ``huafan``.

    Notes
    -----
    The positional order ``(..., streak, flowers, flags)`` is accepted as well.
    """
    from ...errors import UsageError
    from ...hand import is_complete
    from ...hand._tables import kernel_tables

    if not isinstance(flags, set | frozenset | list | tuple) and isinstance(
        flowers, set | frozenset | list | tuple
    ):
        flags, flowers = flowers, flags
    flags = set(flags or ())
    if isinstance(win_type, str):
        if win_type not in _WIN_TYPES:
            raise UsageError(f"unknown win type {win_type!r}; types: {', '.join(_WIN_TYPES)}")
        win_type = _WIN_TYPES[win_type]
    if "qianggang" in flags:
        win_type = L.WIN_ROB_KONG
    if {"qiangjin", "sanjindao"} & flags:
        win_type = L.WIN_INSTANT
    if win_type in (L.WIN_DISCARD, L.WIN_ROB_KONG):
        if discarder is None or discarder == seat or not 0 <= discarder < 4:
            raise UsageError("a discard or robbed-kong win needs --from SEAT (another seat)")
    else:
        discarder = -1
    jin = int(rules["jin"])
    if wilds and not jin:
        raise UsageError("golds held but jin=0 (no 金 in play)")
    yous = [f for f in ("danyou", "shuangyou", "sanyou") if f in flags]
    if yous and rules["youjin"] != "minnan":
        raise UsageError("游金 flags need --rule youjin=minnan")
    counts = np.asarray(counts, np.int64)
    if counts[27:].any():
        raise UsageError("honors are flowers in fuzhou: give them with --flowers")
    melds = np.asarray(melds, np.int64).reshape(-1, 3)
    sets = 5 - len(melds)
    complete = bool(is_complete(counts.astype(np.uint8), int(wilds), sets, ("standard",)))
    robbed = int("qiangjin" in flags)
    instant_ok = "sanjindao" in flags and int(wilds) - robbed >= K.SANJIN
    out = {
        "complete": complete or instant_ok,
        "patterns": [],
        "value": 0,
        "deltas": [0, 0, 0, 0],
        "special": 0,
        "huafan": 0,
    }
    if not out["complete"]:
        return out
    n, quads, suites = _flower_counts(flowers)
    r = pack(rules)
    ctx = win_context(seat, dealer, win_type, melds, feeder=discarder, flags=flags)
    ctx[L.X_DEALER_WINS] = streak
    ctx[L.X_STREAK] = streak
    ctx[L.X_WILD0] = 0 if jin else -1
    ctx[L.X_OPENING_WIN] = int(bool({"tianhu", "qiangjin"} & flags) or "sanjindao" in flags)
    ctx[L.X_ROB_INDICATOR] = robbed
    ctx[L.X_FLOWERS + seat] = n
    ctx[L.X_FLOWER_QUADS + seat] = quads
    ctx[L.X_FLOWER_SUITES + seat] = suites
    ctx[L.X_YOUJIN + seat] = {"danyou": 1, "shuangyou": 2, "sanyou": 3}[yous[-1]] if yous else 0
    if "tianhu" in flags and seat != dealer:
        raise UsageError("tianhu is the dealer's win (--seat = --dealer)")
    if "dihu" in flags and (win_type != L.WIN_DISCARD or discarder != dealer):
        raise UsageError("dihu is a win on the dealer's first discard (--from DEALER)")
    tab = kernel_tables()
    bits = int(K.patterns(r, ctx, counts, int(wilds), sets, melds8(melds), len(melds), tab))
    if "tianhu" in flags and not complete:
        bits &= ~(1 << K.P_TIANHU)
    value, out["deltas"], extra = settle_hand(K.settle, r, ctx, bits)
    out["patterns"] = pattern_names(PATTERNS, bits)
    out["value"] = value
    out["special"] = int(extra[K.E_SPECIAL])
    out["huafan"] = int(extra[K.E_HUAFAN])
    return out


def _p_hands_complete(jin: int) -> Fraction:
    """P(a uniformly random 17 of the 108 suited tiles is complete), golds by ``jin``."""
    from ... import exact, tiles

    if jin == 0:
        return exact.p_complete(tiles=108, hand=17, shapes=("standard",))["standard"]
    if jin == 1:
        return exact.p_complete(tiles=108, hand=17, wild="flip0", shapes=("standard",))["standard"]
    base = exact.deck(108)
    total = Fraction(0)
    for ind in range(27):
        copies = base.copy()
        copies[ind] -= 1
        kinds = [ind, tiles.next_kind(ind)]
        n = exact.hand_counts(copies, 17, kinds, ("standard",))
        good = sum(n[w][d] for w in range(len(n)) for d in range(min(w, len(n[w]) - 1) + 1))
        total += Fraction(4, 108) * Fraction(good, comb(107, 17))
    return total


def _p_three_golds(jin: int) -> Fraction:
    """P(some seat holds at least three golds right after 开金), exactly."""
    if jin == 0:
        return Fraction(0)
    golds = 3 if jin == 1 else 7
    hands = (17, 16, 16, 16)
    rest = 107 - sum(hands)
    none = 0
    for a in range(3):
        for b in range(3):
            for c in range(3):
                for d in range(3):
                    e = golds - a - b - c - d
                    if 0 <= e <= rest:
                        none += (
                            comb(hands[0], a)
                            * comb(hands[1], b)
                            * comb(hands[2], c)
                            * comb(hands[3], d)
                            * comb(rest, e)
                        )
    # choose which of the 107 positions hold the golds: C(107, golds) equally likely sets
    return 1 - Fraction(none, comb(107, golds))


EXACT_NOTES = {
    "tianhu": (
        "P(the dealer's 17 suited tiles, after 补花 and 开金, form five sets and a pair with "
        "the live golds wild). The flowers (honors, f1..f8) only decide where in the shuffled "
        "wall the dealer's suited tiles come from, not which: by exchangeability his 17 "
        "suited tiles and the indicator are a uniformly random 17-subset of the 108 suited "
        "tiles and a uniformly random further one. So this is engine.exact.p_complete(108, "
        "17, wild='flip0') for jin=1 (the indicator's kind has 3 live golds), the same "
        "average with the next kind's 4 tiles wild too for jin=2, and no wild for jin=0. It "
        "is the frequency of pat_tianhu (天胡 has the first claim at the opening)."
    ),
    "sanjindao_deal": (
        "P(some seat holds at least three golds once 开金 is done): the G live golds (3 for "
        "jin=1, 7 for jin=2) are a uniformly random G-subset of the 107 suited tiles other "
        "than the indicator, of which the hands hold 17, 16, 16 and 16 (multivariate "
        "hypergeometric, exact). It is the frequency of deal_max_golds >= 3; a 三金倒 win at "
        "the opening is recorded unless the dealer has 天胡 (then pat_sanjindao is set only "
        "if the dealer is the holder)."
    ),
}


def exact_events(rules) -> dict:
    """Exact probabilities of the deal events of 福州 under ``rules`` (resolved or not).

    Returns
    -------
    dict
        ``tianhu`` and ``sanjindao_deal`` as :class:`fractions.Fraction`, and ``note``
        saying precisely what each is (:data:`EXACT_NOTES`).
    """
    jin = int(VARIANT.resolve(rules)["jin"])
    return {
        "tianhu": _p_hands_complete(jin),
        "sanjindao_deal": _p_three_golds(jin),
        "note": " ".join(f"{k}: {v}" for k, v in EXACT_NOTES.items()),
    }


VARIANT = register(
    Variant(
        name="fuzhou",
        long_name="福州麻将 Fuzhou (金, 抢金, 三金倒, 16-tile hands)",
        # its bonuses are constants, not the payout options: its re-scores are exact
        version=3,
        family="mahjong",
        bot_layout=bot_layout,
        options=OPTIONS,
        patterns=PATTERNS,
        extras=EXTRAS,
        pack=pack,
        value_unit="番",
        doc=__doc__,
        bench_deals=200_000,
        rulebook_section="§3",
        hooks=K,
        exact=exact_events,
        score_hand=score_hand,
        score_flags=(
            "tianhu",
            "dihu",
            "gangkai",
            "qianggang",
            "qiangjin",
            "sanjindao",
            "danyou",
            "shuangyou",
            "sanyou",
        ),
        flower_tiles=36,
        bot_params=bot_params,
        bot_targets=BOT_TARGETS,
        payout_pattern=PAYOUT_PATTERN,
        rescore_context=RESCORE_CONTEXT,
        report_budget=ReportBudget(
            main=96_000,
            sweep=48_000,
            skill=19_200,
            sensitivity_skill=4_000,
        ),
        headline_sweeps=(HeadlineSweep(("jin", "golds"), "金 (gold wildcard) count"),),
        # a seat's match result has an SD of about 145 番 (16 deals, value bots)
        stated_amounts=(100, 250, 500),
    )
)
