"""诸暨麻将 (zhuji): one or two 财神 kinds, 台 counting and the 3-台 minimum.

Rules
-----
RULEBOOK §2 (seed ``001_6e19d86421209e3c.txt``): 136 tiles, dealer 14 / others 13,
kong replacements from the tail. After dealing one tile is flipped from the tail and
set aside; the 财神 are the next two kinds in the cycle (1..9 in a suit, 东南西北,
中发白): 8 live tiles (options: one kind; the indicator's own kind; fixed kinds; none).
A 财神 is wild only in the winning hand, never in 吃/碰/杠/补杠; it may be discarded and
the discard is dead (option: never discarded). Claims 吃 (from the 上家), 碰, 明杠, 补杠,
暗杠; wins on a discard (head bump) and on a robbed 补杠; 胡 > 碰 = 杠 > 吃. Shape: 4
sets + pair (七对 by option).

台 (RULEBOOK §2.3), the best over decompositions and 财神 assignments: each triplet or
kong of 中, 发, 白 1, of 东 2 (南西北 0); 平胡 (all sequences, no 碰/杠) 1; 对对胡 (all
triplets) 1; 清一色 3; 混一色 1; three or more 财神 2; 杠开 1; 抢杠 1 - all added; an
honor kind's 台 counts once, so a second triplet of it made of 财神 (its fifth to seventh
copies, or beside its pong) adds nothing (RULEBOOK §0.1). A win needs 3 of these
ordinary 台, except 全字牌. 天胡, 地胡, 全字牌 and 无财 (no 财神 held) are 8-台 hands:
max(8, ordinary 台), not stacking (option: 8 + ordinary); the patterns recorded are
those of the reading whose ordinary 台 is paid. 1 台 = 1 point: on a self-draw each
other seat pays 台; on a discard the discarder alone (options: all three; the discarder
three times); a robbed kong is paid by the kong player as a discarder. The winner deals
next; the dealer keeps the deal on his win or a draw.

Engine simplifications
----------------------
- The first dealer of each match is drawn at random; the deal is a uniform shuffle.
- The bots declare every legal win, so a pass lock never arises in simulated play;
  ``pass_lock`` is recorded in ``rules_id`` and packed for the loop.
- 无财 needs 财神 in play (``caishen >= 1``): with no 财神 in the game no hand is 无财.
- Under ``wucai=guiwei`` with two 财神 kinds the engine does not know how the held 财神
  split between the two kinds; the hand counts when some split lets every 财神 stand
  for its own kind (an upper bound; exact with one kind).
- ``baotai`` (包台) is reserved: its meaning is unknown (RULEBOOK §2.4 rule 19), so only
  ``false`` is accepted.
- Bots: a complete hand below the minimum is simply not declared and play goes on. The
  ``value`` bot aims at 台 through the shared targets (清一色 strongly, 混一色 and 对对胡)
  and keeps every 财神: it never throws a 财神 away to reach 无财.

Payout options and re-scoring
-----------------------------
Re-scorable (``payout``, engine.runs.rescore): how discard wins are paid (``discard_pay``),
the 8-台 hands' value and how it combines (``pay_special8``, ``special8``), the 无财 rule
(``wucai``: it makes an 8-台 hand, never a legal one) and a cap on the 台 paid
(``tai_cap``, applied after the reading is chosen). The 台 of the patterns themselves are
play options in effect (they are not options): they feed the 3-台 minimum, which decides
which complete hands may be declared. An 8-台 value or the 无财 rule can change which
reading is paid only between a 全字牌 reading and a 混一色 one of the same hand; the
records keep the other one (``alt_tai``, ``score_in``), so a re-score chooses as play
would. A re-score cannot change who won or from whom: ``min_tai``, ``seven_pairs``, the
财神 options, ``reserve`` and ``pass_lock`` are play options (simulate them). ``value``
and ``strong`` read the payout table (engine.runs.adapt re-prices their target bonuses
and win values under a run's payouts), so their records re-score to a first-order answer.

The strong policy
-----------------
``strong`` plays each discard for expected points. For every tile it could throw it
measures the distance of what is left to a plain hand and to each target (清一色, 混一色, 对对胡,
七对 where allowed), the ukeire of the closest, and turns them into points with tables
fitted from the engine's own play (``mjlab fit``, committed in
``engine/variants/zhuji/strong.json``): the chance to win from that distance, ukeire and
live tiles (for a target, the fitted positions' own rate of wins with its pattern by
distance and live tiles: ``target_tables="observed"``, since the 3-台 minimum makes
清一色 the usual legal win and committed play reaches it far more often than a plain
race at its distance says), and what each kind of win brings under this variant's
scoring, dealer or not, plus the stake a seat loses when someone else wins. Against
that it weighs, per opponent, a logistic danger model of the chance that the tile is
won on now (his melds and their suits, the kinds he discarded with their suji and
neighbours and their order, the copies unseen, the stage, the 财神 kinds) times what
feeding costs the discarder, who alone pays the 台, and the chance of being robbed of a
补杠: it folds to safe tiles when the hand is worth less than the danger. 碰, 吃 and
kongs are taken when the hand is worth more after them (with tuned biases). Its scalar
weights are tuned by self-play against ``value`` (``mjlab tune zhuji --policy strong``).
The 3-台 minimum: it counts the 台 its hand holds toward the minimum (each honor triplet
melded or concealed, 东 2 and a dragon 1, and 三财神's 2 at three 财神: ``strong.min_tai``,
``strong.honor_tai``, ``strong.wild_tai``, derived from the rules) and weighs the plain-only
chance to win by a fitted factor that falls with each 台 still missing
(``strong.legal``), so a 碰 of 中 or 东 is worth its 台; a kong's replacement draw is
worth a round of draws (``strong.kong_tempo``). It does not: search beyond the current
decision, read an opponent's hand value or pace beyond the fitted features (his latest
three discards and his first six are all it reads of their order), plan several discards
ahead (a target counts only through its distance), count the 台 a 财神 could make of an
honor pair, or throw a 财神 away for 无财.

Under one 财神, or 财神 from the indicator, the strong models are refitted
(``refit_self_play``): first on value's play, then the win tables and values a second
time on strong's own play with that first model (the danger models stay the first
pass's). Fitted on value's hands alone, strong lost to value at one 财神; without
财神 the second pass made it lose (so a refit there is one pass).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np

from engine.mahjong import layout as L
from engine.mahjong import params as bot_layout

from ... import tiles
from ...errors import UsageError
from .._base import HeadlineSweep, ReportBudget, RuleOption, Variant
from .._mahjong import engine_rules, strong_defaults
from .._registry import register
from .._scoring import melds8, pattern_names, settle_hand, win_context
from . import _kernels as K


@dataclass(frozen=True)
class KindsOption(RuleOption):
    """A rule option whose value is ``none`` or one or two tile kinds (``5z`` / ``1m,2m``)."""

    def parse(self, value):
        """Validate ``none`` or a list of one or two distinct tile kinds (canonical text)."""
        text = str(value).strip().lower()
        if text == "none":
            return "none"
        try:
            ks = tiles.kinds(text)
        except ValueError:
            raise self._bad(value) from None
        if not 1 <= len(ks) <= 2 or len(set(ks)) != len(ks):
            raise self._bad(value)
        return ",".join(tiles.kind_name(k) for k in ks)


OPTIONS = (
    RuleOption(
        "caishen",
        2,
        (0, 1, 2),
        "财神 kinds: 2 = the two kinds after the flipped indicator (8 tiles); 1 = the next "
        "kind (4 tiles); 0 = none (for sweeps).",
        "§2.1 rule 4; §0 rule 2",
    ),
    RuleOption(
        "caishen_from",
        "next",
        ("next", "indicator"),
        "next: the 财神 follow the indicator; indicator: the indicator's own kind (3 live) "
        "and, with caishen=2, the next kind.",
        "§2.1 rule 4",
    ),
    KindsOption(
        "caishen_fixed",
        "none",
        ("none", "TILE", "TILE,TILE"),
        "Players choose the 财神: one or two kinds (e.g. 5z or 1m,9m), as many as "
        "`caishen`; no indicator is flipped. none = chosen by the indicator.",
        "§2.1 rule 4",
    ),
    RuleOption(
        "caishen_discard",
        "dead",
        ("dead", "forbid"),
        "dead: a 财神 may be discarded and nobody can claim or win it; forbid: never discarded.",
        "§2.1 rule 5",
    ),
    RuleOption(
        "reserve",
        0,
        (0, 10, 14, 20),
        "Live tiles left undrawn when the deal is declared drawn (0: play the wall out; 20 "
        "as Hangzhou).",
        "§2.2 rule 10",
    ),
    RuleOption(
        "pass_lock",
        "lock",
        ("lock", "value", "none"),
        "After passing a discard win: lock = no discard win until one's next draw; value = "
        "only a more valuable one; none. (Bots never pass a win.)",
        "§2.2 rule 7",
    ),
    RuleOption(
        "seven_pairs",
        False,
        (False, True),
        "Seven pairs (七对) wins too (台 from suits, 财神 and context only).",
        "§2.3 rule 11",
    ),
    RuleOption(
        "min_tai",
        3,
        (0, 1, 2, 3, 4, 5),
        "Ordinary 台 a win needs (3 起胡; 全字牌 is exempt). Other values for sweeps.",
        "§2.3 rule 12",
    ),
    RuleOption(
        "special8",
        "max",
        ("max", "add"),
        "天胡/地胡/全字牌/无财: max = max(8, ordinary 台); add = 8 + ordinary 台 (the 8 is "
        "pay_special8).",
        "§2.3 rule 17",
        payout=True,
    ),
    RuleOption(
        "wucai",
        "strict",
        ("strict", "guiwei"),
        "无财: strict = no 财神 held; guiwei = also when every 财神 held can stand for its "
        "own kind (归位). It makes a hand an 8-台 hand, never legal: a payout option.",
        "§2.3 rule 17",
        payout=True,
    ),
    RuleOption(
        "discard_pay",
        "discarder",
        ("discarder", "all_three", "discarder_x3"),
        "Discard (and robbed-kong) wins: the discarder pays 台 alone; all three pay 台; "
        "or the discarder pays 3 x 台.",
        "§2.4 rule 18",
        payout=True,
    ),
    RuleOption(
        "baotai",
        False,
        (False,),
        "包台: reserved until its meaning is known (RULEBOOK §2.4 rule 19); only false.",
        "§2.4 rule 19",
    ),
    RuleOption(
        "pay_special8",
        K.SPECIAL8_TAI,
        tuple(range(0, 33)),
        "台 of an 8-台 hand (天胡, 地胡, 全字牌, 无财): max(this, ordinary 台), or this + "
        "ordinary 台 under special8=add. The 3-台 minimum reads only ordinary 台, so it "
        "changes no win's legality.",
        "§2.3 rule 17",
        payout=True,
    ),
    RuleOption(
        "tai_cap",
        0,
        tuple(range(0, 33)),
        "Most 台 a win pays (封顶), applied to the reading chosen (after the 3-台 "
        "minimum); 0 = no cap (the seed).",
        "§2.4 rule 18",
        payout=True,
    ),
)

PATTERNS = K.PATTERNS
"""The scoring patterns, in bit order (declared with their detectors in the kernel module)."""

EXTRAS = K.EXTRAS
"""The extra record columns, in index order (declared with the kernels that write them)."""

BONUS = dict(flush=20, half=8, triplets=8)
"""Value-bot target bonuses in quarter tiles: 清一色 (3 台, legal on its own) weighs five
tiles of distance, 混一色 and 对对胡 (1 台, legal with honor triplets) two. Measured (N =
20,000 deals, one value seat against three efficiency seats): +1.89 +- 0.03 points a
deal for the value seat with one 财神 kind (+0.16 with bonuses 6/3/3), +0.30 +- 0.03 with
two; all-value tables draw 9% of deals with one 财神 kind (61% with 6/3/3). An honors
target (valued honor pairs to triplets) was tried and made every setting worse.

The bot keeps its 财神 rather than discarding them for 无财 (8 台), because that never paid
when tried: 无财 needs 3 ordinary 台 like any hand (RULEBOOK §2.3 rule 12), so the one
route is a 清一色 without 财神. A target for it (the suit's own distance without wilds,
the 财神 held discarded first, extra bonus 8/12/20) lowered the value seat's mean per deal
against three efficiency seats on the same 8,000 deals each: one 财神 kind +1.90 -> +1.87
/ +1.85 / +1.81, two kinds +0.30 -> +0.18 / +0.05 / -0.02 (interval of each +-0.10)."""


def _wild_setup(rules) -> dict:
    """engine_rules keywords choosing the 财神 kinds."""
    n = rules["caishen"]
    fixed = rules["caishen_fixed"]
    if fixed != "none":
        ks = tiles.kinds(fixed)
        if len(ks) != n:
            raise UsageError(
                f"rule option caishen_fixed={fixed} names {len(ks)} kind(s) but caishen={n}; "
                f"give caishen={len(ks)}"
            )
        return dict(wild_mode=3, wild_kinds=n, wild_fixed=(ks[0], ks[1] if n == 2 else -1))
    if n == 0:
        return dict(wild_mode=0, wild_kinds=0)
    mode = 1 if rules["caishen_from"] == "next" else 2
    return dict(wild_mode=mode, wild_kinds=n, indicator=0, indicator_live=False)


BOT_TARGETS = dict(flush=("qingyise",), half=("hunyise",), triplets=("duiduihu",), pairs=("qidui",))
"""The patterns of each strong-policy target (engine.runs.fit)."""


def bot_params(policy, rules) -> dict:
    """Default bot parameters of ``policy`` (the value bot's target bonuses)."""
    if policy == "strong":
        return strong_defaults(kong_tempo=1.0, **strong_tai(rules))
    return dict(BONUS) if policy == "value" else {}


def strong_tai(rules) -> dict:
    """What the strong bot counts toward the 台 minimum under ``rules``, from the pattern
    declarations: the minimum (``min_tai``), each honor triplet's 台 (东 2, dragons 1) and
    三财神's 2 台 at three 财神 (none without 财神).
    """
    return dict(
        min_tai=float(rules["min_tai"]),
        honor_tai=[float(x) for x in K.HONOR_TAI],
        wild_tai=[float(K.TAI_SANCAISHEN), 3.0 if rules["caishen"] > 0 else 0.0],
    )


def pack(rules) -> np.ndarray:
    """Packed int64 rules for the kernel."""
    shapes = ("standard", "seven_pairs") if rules["seven_pairs"] else ("standard",)
    r = engine_rules(
        kernel_id=K.KERNEL_ID,
        chow=True,
        discard_win=True,
        rob_kong=True,
        wild_discard=1 if rules["caishen_discard"] == "dead" else 0,
        reserve=rules["reserve"],
        rot_win_next=False,
        rot_draw_next=False,
        shapes=shapes,
        pass_lock=rules["pass_lock"] != "none",
        **_wild_setup(rules),
    )
    r[K.Z_CAISHEN] = rules["caishen"]
    r[K.Z_DISCARD_PAY] = ("discarder", "all_three", "discarder_x3").index(rules["discard_pay"])
    r[K.Z_SPECIAL8] = 0 if rules["special8"] == "max" else 1
    r[K.Z_WUCAI] = 0 if rules["wucai"] == "strict" else 1
    r[K.Z_MIN_TAI] = rules["min_tai"]
    r[K.Z_SEVEN_PAIRS] = int(rules["seven_pairs"])
    r[K.Z_PASS_LOCK] = ("lock", "value", "none").index(rules["pass_lock"])
    eight = special_values(rules)
    r[K.Z_PAY_TIANHU] = eight["tianhu"]
    r[K.Z_PAY_DIHU] = eight["dihu"]
    r[K.Z_PAY_QUANZIPAI] = eight["quanzipai"]
    r[K.Z_PAY_WUCAI] = eight["wucai"]
    r[K.Z_TAI_CAP] = rules["tai_cap"]
    return r


def special_values(rules) -> dict[str, int]:
    """The 台 of each 8-台 hand. The kernels keep one slot each; one option sets them all
    (天胡 and 全字牌 never occur in the 2,000 efficiency deals that prove every payout
    option re-scores exactly, tests/engine/runs/test_rescore.py, so they have no option of
    their own).
    """
    return {name: rules["pay_special8"] for name in SPECIAL8}


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
    """Score one winning hand in 台 (the ``mjlab score`` calculator).

    Parameters
    ----------
    rules : mapping
        Resolved options (:meth:`Variant.resolve`).
    counts : array_like (34,)
        Concealed tiles with the winning tile, 财神 removed.
    wilds : int
        财神 held. ``wild_kinds`` (``--wild``) names their kinds; it is needed only for
        ``wucai=guiwei``.
    melds : array_like (n, 3)
        Exposed melds (type, kind, from seat).
    win_kind : int
        Kind of the winning tile (-1 for a 财神); not used by the 台 rules.
    win_type : int
        engine.mahjong.layout WIN_* code.
    seat, dealer, streak : int
        The winner's and the dealer's seat; the streak does not change 台.
    flags : set of str
        ``tianhu`` (the dealer's first fourteen) or ``dihu`` (a non-dealer's first draw).
    discarder : int, optional
        The discarder (discard win) or the robbed kong player (rob_kong).

    Returns
    -------
    dict
        ``complete``; ``legal`` (ordinary 台 reach the minimum, or 全字牌); ``patterns``,
        ``value`` (台 paid, with the 8-台 specials, at most tai_cap) and ``ordinary``
        (台 without them) of the reading paid (the best declarable one; the best one
        when none is); ``deltas`` per seat (all zero when the hand is not legal: it cannot
        be declared).
    """
    from ...hand import is_complete
    from ...hand._tables import kernel_tables

    unknown = set(flags) - {"tianhu", "dihu", "gangkai", "qianggang"}
    if unknown:
        raise UsageError(f"zhuji: unknown flag(s) {', '.join(sorted(unknown))}")
    if "tianhu" in flags and seat != dealer:
        raise UsageError("zhuji: tianhu is the dealer's win (--seat = --dealer)")
    if "dihu" in flags and seat == dealer:
        raise UsageError("zhuji: dihu is a non-dealer's win (--seat != --dealer)")
    if win_type in (L.WIN_DISCARD, L.WIN_ROB_KONG) and discarder is None:
        raise UsageError("zhuji: a discard or robbed-kong win needs the feeding seat (--from)")
    if wilds and rules["caishen"] == 0:
        raise UsageError("zhuji: the hand holds 财神 but caishen=0")
    if wilds and rules["wucai"] == "guiwei" and not len(wild_kinds):
        raise UsageError("zhuji: wucai=guiwei needs the 财神 kinds (--wild)")
    counts = np.asarray(counts, np.int64)
    melds = np.asarray(melds, np.int64).reshape(-1, 3)
    sets = 4 - len(melds)
    r = pack(rules)
    shapes = ("standard", "seven_pairs") if rules["seven_pairs"] else ("standard",)
    try:
        complete = bool(is_complete(counts.astype(np.uint8), wilds, sets, shapes))
    except ValueError as exc:
        raise UsageError(f"zhuji: {exc}") from None
    out = {
        "complete": complete,
        "legal": False,
        "patterns": [],
        "value": 0,
        "ordinary": 0,
        "deltas": [0, 0, 0, 0],
    }
    if not complete:
        return out
    ctx = win_context(seat, dealer, win_type, melds, feeder=discarder, flags=flags)
    ctx[L.X_STREAK] = streak
    if rules["caishen"] > 0:
        ctx[L.X_WILD0] = wild_kinds[0] if len(wild_kinds) else 0
        ctx[L.X_WILD1] = wild_kinds[1] if len(wild_kinds) > 1 else -1
    else:
        ctx[L.X_WILD0] = ctx[L.X_WILD1] = -1
    res = np.zeros(K.N_OUT, np.int64)
    K.evaluate(r, ctx, counts, wilds, sets, melds8(melds), len(melds), kernel_tables(), res)
    bits = int(res[K.O_BITS])
    out["legal"] = bool(res[K.O_LEGAL])
    out["patterns"] = pattern_names(PATTERNS, bits)
    out["value"] = int(res[K.O_VALUE])
    if rules["tai_cap"] > 0:
        out["value"] = min(out["value"], rules["tai_cap"])
    out["ordinary"] = int(res[K.O_ORDINARY])
    if out["legal"]:
        ctx[L.X_VALUE] = res[K.O_VALUE]
        ctx[K.S_ORDINARY] = res[K.O_ORDINARY]
        _, out["deltas"], _ = settle_hand(K.settle, r, ctx, bits)
    return out


SPECIAL8 = K.SPECIAL8
"""The 8-台 hands (RULEBOOK §2.3 rule 17)."""


def _aggregate(keys: np.ndarray, weights: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Sum the weights of equal keys (keys < 0 dropped); exact int64."""
    keep = keys >= 0
    keys, weights = keys[keep], weights[keep]
    order = np.argsort(keys, kind="stable")
    keys, weights = keys[order], weights[order]
    if not len(keys):
        return keys, weights
    start = np.flatnonzero(np.r_[True, keys[1:] != keys[:-1]])
    return keys[start], np.add.reduceat(weights, start)


@functools.cache
def _suit_groups(copies: tuple) -> tuple[np.ndarray, np.ndarray]:
    from ...hand._tables import kernel_tables

    keys = np.empty(5**9, np.int64)
    weights = np.empty(5**9, np.int64)
    K.suit_summaries(np.array(copies, np.int64), kernel_tables(), keys, weights)
    return _aggregate(keys, weights)


@functools.cache
def _honor_groups(copies: tuple) -> tuple[np.ndarray, np.ndarray]:
    keys = np.empty(5**7, np.int64)
    weights = np.empty(5**7, np.int64)
    K.honor_summaries(np.array(copies, np.int64), keys, weights)
    return _aggregate(keys, weights)


@functools.cache
def _sumsets() -> np.ndarray:
    return K.sumset_table()


@functools.cache
def _joined(first: tuple, second: tuple) -> tuple[np.ndarray, np.ndarray]:
    ka, wa = _suit_groups(first)
    kb, wb = _suit_groups(second)
    keys = np.empty(len(ka) * len(kb), np.int64)
    weights = np.empty(len(ka) * len(kb), np.int64)
    m = K.join_suits(ka, wa, kb, wb, _sumsets(), keys, weights)
    return _aggregate(keys[:m], weights[:m])


def _canonical_suit(copies) -> tuple:
    """A suit's copies up to reversal (the shapes and 台 do not see rank order)."""
    t = tuple(int(x) for x in copies)
    return min(t, t[::-1])


def tianhu_decks(rules) -> list[tuple]:
    """The decks the dealer's fourteen come from: ``[(probability, plain copies (34,),
    财神 count)]``. With an indicator it is one of the 136 tiles (its kind with
    probability 4/136) and the hand comes from the other 135 tiles.
    """
    from fractions import Fraction

    n = rules["caishen"]
    full = np.full(34, 4, np.int64)
    if n == 0:
        return [(Fraction(1), full, 0)]
    if rules["caishen_fixed"] != "none":
        c = full.copy()
        ks = tiles.kinds(rules["caishen_fixed"])
        c[ks] = 0
        return [(Fraction(1), c, 4 * len(ks))]
    out = []
    for ind in range(34):
        c = full.copy()
        c[ind] = 3
        first = ind if rules["caishen_from"] == "indicator" else tiles.next_kind(ind)
        kinds = [first] if n == 1 else [first, tiles.next_kind(first)]
        wilds = int(c[kinds].sum())
        c[kinds] = 0
        out.append((Fraction(4, 136), c, wilds))
    return out


def exact_tianhu(rules) -> dict:
    """天胡 exactly: P(the dealer's first fourteen are complete with 3 ordinary 台 or
    全字牌), under the options ``rules``; also P(complete) without the minimum.

    Returns ``{"tianhu", "tianhu_complete", "note"}`` (probabilities as Fractions). The
    ordinary 台 at 天胡 come from honor triplets, 平胡 / 对对胡, 清一色 / 混一色 and
    三财神 (no context 台). Each suit's count vectors are grouped by what the 台 rules
    see (see engine.variants.zhuji._kernels, exact section), joined across suits, and the last
    join with the honors and the 财神 count weighs the completions exactly.
    """
    from fractions import Fraction
    from math import comb

    rules = VARIANT.resolve(rules)
    if rules["seven_pairs"]:
        raise UsageError("exact zhuji covers the standard shape only (seven_pairs=false)")
    p_legal = Fraction(0)
    p_complete = Fraction(0)
    for prob, copies, n_wild in tianhu_decks(rules):
        suits = sorted((_canonical_suit(copies[9 * s : 9 * s + 9]) for s in range(3)), reverse=True)
        k2, w2 = _joined(suits[0], suits[1])
        kc, wc = _suit_groups(suits[2])
        keys = np.empty(len(k2) * len(kc), np.int64)
        weights = np.empty(len(k2) * len(kc), np.int64)
        m = K.join_suits(k2, w2, kc, wc, _sumsets(), keys, weights)
        k3, w3 = _aggregate(keys[:m], weights[:m])
        kh, wh = _honor_groups(tuple(int(x) for x in copies[27:]))
        binom = np.array([comb(n_wild, w) for w in range(15)], np.int64)
        legal = np.empty(len(k3), np.int64)
        complete = np.empty(len(k3), np.int64)
        K.tianhu_counts(k3, kh, wh, n_wild, rules["min_tai"], binom, legal, complete)
        total = comb(int(copies.sum()) + n_wild, 14)
        w3o = w3.astype(object)
        p_legal += prob * Fraction(int(np.dot(w3o, legal.astype(object))), total)
        p_complete += prob * Fraction(int(np.dot(w3o, complete.astype(object))), total)
    return {
        "tianhu": p_legal,
        "tianhu_complete": p_complete,
        "note": "天胡 needs 3 ordinary 台 (or 全字牌) like every win; tianhu_complete does not",
    }


VARIANT = register(
    Variant(
        name="zhuji",
        long_name="诸暨麻将 Zhuji (财神, 台, 3 台起胡)",
        # its bonuses are constants, not the payout options: its re-scores are exact
        version=4,
        family="mahjong",
        bot_layout=bot_layout,
        options=OPTIONS,
        patterns=PATTERNS,
        extras=EXTRAS,
        pack=pack,
        value_unit="台",
        doc=__doc__,
        bench_deals=100_000,
        rulebook_section="§2",
        hooks=K,
        exact=exact_tianhu,
        score_hand=score_hand,
        score_flags=("tianhu", "dihu", "gangkai", "qianggang"),
        bot_params=bot_params,
        bot_targets=BOT_TARGETS,
        target_tables="observed",
        refit_self_play=True,
        report_budget=ReportBudget(
            main=48_000,
            sweep=19_200,
            skill=6_400,
            sensitivity_skill=3_200,
        ),
        headline_sweeps=(HeadlineSweep(("caishen",), "财神 (wildcard) count"),),
        # a seat's match result has an SD of about 17 台 (16 deals, value bots)
        stated_amounts=(10, 25, 50),
    )
)
