"""祁阳落地扫 (luodisao): the Qiyang 字牌 game of 80 cards and 王, 胡息, 醒 and 番.

Rules
-----
RULEBOOK §4 (seed ``003_fbd9540c51053f47.txt``), every option of the section a rule
option below.

- Cards (rules 1, 2, 5): 小 一..十 and 大 壹..拾, four each, and ``kings`` 王 (default 1);
  red cards 二 七 十 贰 柒 拾. Players (rules 3, 4): 3 by default (``players`` 2 or 4, or
  the 坐醒 form ``zuoxing``); the dealer gets 15 cards, the others 14, the rest is the
  stock.
- Groups and 胡息 (rules 6, 7): 句 0, 一二三 3 / 6, 二七十 3 / 6, 大小搭 0, 坎 3 / 6, 碰
  1 / 3, 啸 3 / 6, 跑 6 / 9, 倾 9 / 12 (small / big). A win (rules 16, 17): all cards in
  exactly 5 门子 (3- or 4-card groups and at most one pair) with at least 6 胡息.
- Turn (rules 8-13): flip the top stock card; 倾 > 胡 > 跑 / 碰 > 吃; 倾 (a 坎 or 啸 and
  one's own flip), 啸 (a pair and one's own flip) and 跑 (a 坎 or 啸 and another's card,
  a 碰 and any flipped card) are forced unless the card wins; a card turned up into a
  倾 or 啸 is never shown, so nobody else may claim it (rule 8); 吃 by the flipper and
  his 下家 (a discard: the 下家 only), with 下火; 过张; 臭啸; 死守; 冲明跑. Discards: after
  吃, 碰, 啸 and a first 跑; none after 倾 or a later 跑 (the 下家 flips).
- 王 (rules 14, 15, 19): stands for any card (its colour and 醒 too); a 王 holder wins
  only by self-draw and never discards a 王; 王钓 4, 王钓王 8, 王闯 8, 王闯王 16, 王炸 16,
  王炸王 32 replace 自摸's ×2.
- Score (rules 20-23): 囤 = 胡息 + 3 × 醒 (``tun_per_xing``); ``value`` = 囤 × 番 with
  番 = win method (自摸 2 or the 王 factor) × colour (黑胡 4, 一点朱 3, 红胡 2, 全红 4) ×
  地胡 2, 天胡 its largest single factor (max(2, colour)), each factor a ``pay_*``
  option; self-draw and another's flipped card: every other player pays ``value``; a
  discard: the discarder pays it for every other player; ``cap`` per payer.
- 黄庄 (rule 24): 王 payments, 5 per 王 (``huang_per_wang``); dealer (rule 25): the
  winner deals, after 黄庄 the dealer's 下家.

Record: ``value`` is the final per-payer score 囤 × 番 before a cap (the path to it is
in the extras ``huxi`` → ``tun`` = huxi + 3 × ``xing`` → × ``fan``); one ``pat_*`` per
番 factor the winning hand has (天胡 keeps only its largest, see ``fan``). ``win_type``:
``self_draw`` (incl. the 王 wins), ``discard`` (a discard, or a card another player
flipped: then ``discarder`` is the flipper and ``win_on_flip`` is 1, and every other
player pays), ``instant`` (天胡), ``none`` (黄庄). Extras: ``huxi``, ``xing``, ``tun``,
``fan``, ``red`` (red cards of the winner), ``win_on_flip``, ``capped`` (a cap cut a
payment), ``zuoxing`` (the seat sitting out, -1), ``zuoxing_money``,
``wang_money_0..3`` (黄庄 王 payments, also in the deltas), the deal's counts of
``qing``, ``xiao``, ``chouxiao``, ``pao``, ``mingpao`` (冲明跑), ``sishou`` (死守 turns),
``guozhang`` (passed claims), ``stock_left``, ``xing_card`` (the card the 醒 was
counted on: 0..19, 20 王, -1), and for re-scoring ``wang_held`` (on a 黄庄 the 王 each
seat held, seat s's count × 10^s; 0 on a win) and ``xing_raw`` (the 醒 before 双醒).

Payout options and re-scoring
-----------------------------
``analysis.rescore`` / ``mjlab rescore`` (issue 22) pay recorded deals again under the
payout options: ``pay_tianhu``, ``pay_dihu``, ``pay_zimo``, ``pay_honghu``,
``pay_yidianzhu``, ``pay_quanhong``, ``pay_heihu``, ``pay_wangdiao`` (each pattern's 番
factor, 1..32), ``tun_per_xing`` (囤 per 醒, 0..10), ``shuangxing``, ``fan_combine``,
``cap``, ``huangzhuang`` and ``huang_per_wang`` (黄庄 分 per 王, 0..32). A re-score
pays ``xing``, ``tun``, ``fan``, ``value``, ``capped``, ``zuoxing_money``,
``wang_money_*``, the colour flags and the deltas from ``huxi``, ``xing_raw``, ``red``,
``wang_held`` and the flags by the variant's own settlement (``settle_row``, as in play); for
``efficiency`` and ``random`` records it equals a fresh
simulation column for column (``tests/engine/runs/test_rescore.py``). It cannot change the deal as
played, nor the reading (胡息, red cards, patterns), which no payout option moves (see
below). The play options (``players``, ``zuoxing``, ``kings``, ``must_win``) change the
deck or what a player may do; ``xing`` changes which kind is counted, so the 醒 count,
the 醒 card and, through a 王 standing for the 醒 kind, the reading: the records
would need every method's count and reading (more than the 24 extras), so it is
simulated instead. The shapes of two or more 王 keep the seed's factors (王钓王 8, 王闯 8,
王闯王 16, 王炸 16, 王炸王 32): the default deck's one 王 never makes them, so the
exactness sweep could not check them. The ``value`` and ``strong`` bots read the payout
options (value: its colour aim and its passed wins; strong: its win values and passed
wins), so their records are simulated again, not re-scored; ``efficiency`` and
``random`` read none.

Engine simplifications
----------------------
- Four alike dealt are laid as 倾 at once, before the dealer's first discard (the seed
  lays them "after the first card in"; the evaluation is the same). A 倾 never costs a
  discard; only 跑 count toward 「第一次跑牌需要出牌」.
- 天胡's 醒 card under 跟醒 is the dealer's last dealt card (the 祁阳 server's
  ``SetXingPai(byBankerCard)``). 上醒 / 下醒 take the rank above / below the card turned
  up after the win (wrapping 拾 -> 壹). A 王 as the 醒 card stands for the kind that
  suits the winner best; a winning 王 under 跟醒 must stand for the kind counted.
- The scorer takes the reading (split, what each 王 stands for, whether the winning
  card joins a 啸 / 碰 on the table, or a 王 shape) with the highest value under the
  seed's table (the default factors multiplied, 3 囤 per 醒, the 醒 before 双醒), and pays
  it under the rule set's: under the default rules that is the highest ``value``, and no
  payout option moves the reading. Under another table a winner holding 王 may leave
  a better reading unclaimed: in 20,000 efficiency deals (seed 5) 0.10-0.42% of wins
  (pay_heihu=1, pay_honghu=1 or 8, pay_zimo=4, pay_wangdiao=2, pay_yidianzhu=8,
  shuangxing; none under fan_combine=add), at most 0.4% of the mean value. The 王
  shapes need the drawn card to be free (not the fourth of a 坎 or 啸, which must 倾).
- Caps: a self-draw or flip win caps each payer; a discard caps the discarder's total
  (seed: 「放炮的玩家最多输300」). 坐醒: the sitting-out seat (two after the dealer) pays
  nothing and receives ``(3 × 醒 × 番) // 2`` from the winner (the 祁阳 server's
  DivideXingScore); turn order skips it.
- 黄庄 ``pool``: a total that does not split evenly gives its remainder one point at a
  time to the 王-less seats in turn order from the dealer (zero-sum; the server floors).
- 过张 bars 吃 and 碰 of that kind (跑 and 胡 stay); passing a 碰 also marks a later 啸
  of the kind as 臭啸 (shown one up, scored as a 啸). 冲明跑 is a discard that lets
  another player 跑 onto his 啸; the discarder loses 吃 and 碰. Claims stop at 4 table
  groups and must leave a discardable card (forced 倾 / 啸 / 跑 are always made).
- ``must_win`` changes what a bot may pass: the built-in bots declare every win except
  the value and strong bots' EV pass on another player's card (:mod:`engine.zipai.bots`,
  :mod:`engine.zipai.strong`).
- With more seats than policies given, seat ``s`` uses policy ``s mod n``.
- The first dealer of a match is drawn at random (MATCH stream).

Bots
----
``random``, ``efficiency`` and ``value`` (:mod:`engine.zipai.bots`; value's tuned weights in
``engine/variants/luodisao/value.json``), and ``strong`` (:mod:`engine.zipai.strong`; its
fitted model and tuned parameters, with the commands that made them, in
``engine/variants/luodisao/strong.json``). What ``value`` does: it discards by keep value
with 胡息 weighed and the colour aim scaled by the run's colour factors; it makes a 碰 or
吃 when the distance it saves and the 胡息 it lays outweigh what the pairs it breaks may
still bring as 碰 / 啸; it passes an optional win on another player's card when the
self-draw race, scored under the run's rules, beats it by a margin. What ``strong``
does:

- It values a hand as P(win) × points. P(win): for a hand that waits, from a table
  fitted on its own simulated deals (``mjlab fit luodisao --policy strong``) by the
  hand's live outs (the unseen cards that complete it, by the engine's win check) and
  the stock left; otherwise by the hand's distance (cards missing for 5 门子, one more
  while the certain 胡息 is short of 6), that 胡息's class and the stock left. The points:
  the mean win times fitted factors of the certain 胡息 and of the red cards held (黑胡,
  一点朱, 红胡, 全红 as they come out of play), re-priced from the rules they were fitted
  under to the run's (番 factors and how they combine, 囤 per 醒, 双醒, 醒 procedure, the
  players who pay) through the fitted composition of the wins (colour class by red
  cards held, win method, 胡息 and 醒).
- It defends against 包赔 (a discard won on costs its discarder the win for every other
  player). When a claim obliges it to discard, each card's score is the hand's value
  after it times the chance nobody wins on it, less the expected payment of feeding;
  the chance is a logistic model per opponent, fitted where the simulator knows every
  hand, of what the seat can see: his table groups and their known 胡息, the cards in
  his hand, his discards and whether one shares a group with the card, the card's rank,
  size and colour, its copies unseen, the 王 unseen and the stock left (0 for an
  opponent who showed a 王: he cannot win on a discard).
- It makes an optional 碰 or 吃 (and picks the 吃 option) when the best discard after
  it is worth more than the hand without it, by a tuned margin; a 吃 that breaks a pair
  gives up the 碰 / 啸 the pair may still become (its 胡息 times the chance its third
  card comes, at a tuned worth per 胡息).
- It passes an optional win on another player's card when the self-draw race (its
  winning cards unseen, the flips left, each self-draw scored by the engine's scorer
  under the run's rules, every player pays) is worth more than the win now, net of what
  the others' wins cost meanwhile.

What it does not do: no search or roll-out (one discard deep; outs counted for the hand
after each discard, not for the hands two cards away); no per-opponent model of a win's
value (the fitted mean payment) or of the hidden kinds of 倾 / 啸; no account of 冲明跑,
臭啸 or 过张 consequences of a claim it passes; no choice where the rules force (倾 / 啸 /
跑 are forced, so no bot has a 跑 or 啸 to weigh; 王 never discarded, a 王 holder wins
only by self-draw) or in the 醒. The P(win) tables, the danger model and the tuned
parameters come from the default rules: under other 王 counts or players they are played
as fitted (a refit under those rules, ``mjlab fit luodisao --rule ...``, replaces them);
the payout options re-price the values without a refit. The win values ignore ``cap``
(the engine's scorer, used for passed wins, applies it).

Evidence: ``tests/engine/variants/luodisao/test_luodisao.py`` (golden scoring of every group,
factor, 醒 mode, 王 win and payment rule), ``tests/engine/variants/luodisao/test_luodisao_play.py``
(an event-log referee, stacked decks, conformance, determinism, exact P(天胡) against the evaluator
and the simulation, the golden replay ``tests/golden/luodisao.txt``),
``tests/engine/zipai/test_zipai_strong.py`` (the strong kernels against their definitions,
determinism, the other policies' records unchanged, a refit against the committed model, the golden
strong replay ``tests/golden/luodisao-strong.txt``),
``tests/engine/variants/luodisao/test_luodisao_bots.py`` (the value and strong claims on stacked
positions, the rules each reads), ``tests/engine/zipai/test_zipai_audit.py`` (the decision
audit, engine.play.zipai.audit).
"""

from __future__ import annotations

import numpy as np

from engine.zipai import layout as Z
from engine.zipai import params as bot_layout

from ...errors import UsageError
from ...zipai import hand as zhand
from ...zipai.exact import exact_tianhu
from .._base import HeadlineSweep, ReportBudget, RuleOption, Variant
from .._registry import register
from . import _kernels as K
from ._scorer import score_win

MUST_WIN = ("discard", "any", "none")
XING = ("gen", "fan", "shang", "xia")
FAN_COMBINE = ("multiply", "add")
HUANGZHUANG = ("pairwise", "pool")

OPTIONS = (
    RuleOption(
        "players",
        3,
        (2, 3, 4),
        "Seats at the table; all of them play (the dealer 15 cards, the others 14).",
        "§4.1 rule 3",
        changes_deal=True,
    ),
    RuleOption(
        "zuoxing",
        False,
        (False, True),
        "坐醒 form (needs players=4): the seat two after the dealer sits out, pays nothing "
        "and takes half the 醒 part of one payment from the winner.",
        "§4.1 rule 3",
    ),
    RuleOption(
        "kings", 1, (0, 1, 2, 3, 4), "王 (jokers) in the deck.", "§4.1 rule 2", changes_deal=True
    ),
    RuleOption(
        "must_win",
        "discard",
        MUST_WIN,
        "Forced wins: discard = a player without 王 must win on a discard (放炮必胡); any = "
        "every possible win (有胡必胡); none = no win is forced.",
        "§4.5 rule 18",
    ),
    RuleOption(
        "xing",
        "gen",
        XING,
        "醒: gen = 跟醒, copies of the winning card; fan = 翻醒, copies of the next stock card "
        "(the winning card if none); shang / xia = 上醒 / 下醒, the rank above / below that "
        "turned card.",
        "§4.6 rule 21",
    ),
    RuleOption(
        "shuangxing",
        False,
        (False, True),
        "双醒: the 醒 count doubles.",
        "§4.6 rule 21",
        payout=True,
    ),
    RuleOption(
        "fan_combine",
        "multiply",
        FAN_COMBINE,
        "How 番 factors combine: multiply (the 祁阳 server), or add (the factors above 1).",
        "§4.6 rule 22",
        payout=True,
    ),
    RuleOption(
        "cap",
        0,
        (0, 300, 600),
        "封顶: most a payer loses on one win (0 = no cap); a discarder's total is capped.",
        "§4.6 rule 23",
        payout=True,
    ),
    RuleOption(
        "huangzhuang",
        "pairwise",
        HUANGZHUANG,
        "黄庄 王 payments of huang_per_wang (5) per 王: pairwise = the seat with more 王 pays "
        "that × the difference to each seat with fewer; pool = each 王 holder pays it per "
        "王, split among the seats with none.",
        "§4.6 rule 24",
        payout=True,
    ),
    RuleOption(
        "huang_per_wang",
        5,
        tuple(range(0, 33)),
        "黄庄 王 money: 分 per 王 of the huangzhuang payments.",
        "§4.6 rule 24",
        payout=True,
    ),
    RuleOption(
        "tun_per_xing",
        3,
        tuple(range(0, 11)),
        "囤 per 醒: 囤 = 胡息 + this × 醒 (also the 坐醒 money's 醒 part).",
        "§4.6 rule 20",
        payout=True,
    ),
)

PAY_PATTERNS = (
    ("tianhu", "天胡's 番 is max(this, the colour factor), nothing else"),
    ("dihu", "地胡 (a win on the dealer's first discard) multiplies the 番 by this"),
    ("zimo", "自摸 (a plain self-draw; a 王 win has its own factor instead) multiplies by this"),
    ("honghu", "红胡 (7-9 red cards) multiplies by this"),
    ("yidianzhu", "一点朱 (exactly one red card) multiplies by this"),
    ("quanhong", "全红 (more than 9 red cards) multiplies by this"),
    ("heihu", "黑胡 (no red card) multiplies by this"),
    ("wangdiao", "王钓 (self-draw pairing a lone 王) multiplies by this instead of 自摸"),
)
"""The patterns whose 番 factor is a payout option ``pay_<name>`` (with what it does).
The shapes of two or more 王 (王钓王, 王闯, 王闯王, 王炸, 王炸王) keep the seed's factors:
no deal of the default deck (``kings=1``) shows them, so no re-score under them could be
checked against the default sample."""

OPTIONS = OPTIONS + tuple(
    RuleOption(
        f"pay_{name}",
        K.PATTERNS[K.BIT[name]].value,
        tuple(range(1, 33)),
        f"番 factor: {what}" + ("." if name == "tianhu" else " (added under fan_combine=add)."),
        "§4.5 rule 19" if name.startswith("wang") else "§4.6 rule 22",
        payout=True,
    )
    for name, what in PAY_PATTERNS
)


PATTERNS = K.PATTERNS
"""The scoring patterns, in bit order (declared with their detectors in the kernel module)."""

EXTRAS = K.EXTRAS
"""The extra record columns, in index order (declared with the kernels that write them)."""


def _check(rules) -> None:
    if rules["zuoxing"] and rules["players"] != 4:
        raise UsageError(
            f"rule option zuoxing=true is the 4-seat 坐醒 form: it needs players=4, "
            f"got players={rules['players']}"
        )


def players_of(rules) -> int:
    """人数 seats in the records: ``players`` (the 坐醒 seat included)."""
    return int(rules["players"])


TUN_PER_XING = K.TUN_PER_XING_SEED
"""囤 per 醒 of the seed (RULEBOOK §4.6 rule 20): 囤 = 胡息 + 3 × 醒; the default of
``tun_per_xing``."""


def factors(rules) -> tuple[int, ...]:
    """番 factor of each pattern, in pattern bit order: the ``pay_*`` options, the seed's
    (each pattern's declared ``value``) for the shapes of two or more 王.
    """
    out = list(K.FAN_DEFAULTS)
    for name, _ in PAY_PATTERNS:
        out[K.BIT[name]] = rules[f"pay_{name}"]
    return tuple(out)


RED_HONGHU = (7, 9)
"""Red cards of 红胡 (more: 全红; RULEBOOK §4.6 rule 22)."""


STRONG_DEFAULTS = {
    "alpha": 1.0,
    "keep": 0.5,
    "peng_bias": 0.0,
    "chi_bias": 0.0,
    "colour": 1.0,
    "survive": 0.9,
    "pass_risk": 0.5,
    "pair": 0.0625,
}
"""The strong policy's starting parameters (engine.zipai.params); the tuned ones and the
fitted model are in ``engine/variants/luodisao/strong.json``."""


VALUE_DEFAULTS = {
    "huxi": 0.25,
    "pair": 1.0,
    "claim_margin": 0.0,
    "pass_margin": 0.2,
}
"""The value policy's hand-set weights (engine.zipai.params): a 胡息 is worth a quarter
card of distance; a 碰 or 吃 is made when it gains anything; an optional win on another
player's card is passed when the self-draw race is worth 20 % more (at the seed's ×2 for
自摸: a self-draw chance above 0.6)."""


def bot_params(policy, rules) -> dict:
    """机器人参数 the default parameters of ``policy`` (``value`` and ``strong``)."""
    if policy == "strong":
        return dict(STRONG_DEFAULTS)
    return dict(VALUE_DEFAULTS) if policy == "value" else {}


def pack(rules) -> np.ndarray:
    """规则 the packed int64 rules of the 字牌 kernel (slots in :mod:`engine.zipai.layout`)."""
    _check(rules)
    r = np.zeros(Z.Z_N, np.int64)
    r[Z.Z_SEATS] = rules["players"]
    r[Z.Z_ZUOXING] = int(rules["zuoxing"])
    r[Z.Z_KINGS] = rules["kings"]
    r[Z.Z_MUST_WIN] = MUST_WIN.index(rules["must_win"])
    r[Z.Z_XING] = XING.index(rules["xing"])
    r[Z.Z_SHUANGXING] = int(rules["shuangxing"])
    r[Z.Z_FAN_ADD] = FAN_COMBINE.index(rules["fan_combine"])
    r[Z.Z_CAP] = rules["cap"]
    r[Z.Z_HZ_POOL] = HUANGZHUANG.index(rules["huangzhuang"])
    r[Z.Z_MIN_HUXI] = zhand.MIN_HUXI
    r[Z.Z_TUN_PER_XING] = rules["tun_per_xing"]
    r[Z.Z_HZ_PER_WANG] = rules["huang_per_wang"]
    r[Z.Z_DEALER_CARDS] = 15
    r[Z.Z_HAND_CARDS] = 14
    r[Z.Z_VARIANT] = K.KERNEL_ID
    r[Z.Z_VALUES : Z.Z_VALUES + 20] = zhand.values_table().reshape(-1)
    r[K.Z_F : K.Z_F + K.N_PATTERNS] = factors(rules)
    r[K.Z_HONG_LO], r[K.Z_HONG_HI] = RED_HONGHU
    return r


def exact(rules) -> dict:
    """天胡 exact deal events: P(天胡) (:func:`engine.zipai.exact.exact_tianhu`)."""
    return exact_tianhu(rules)


def score_hand(rules, hand: str, **kwargs) -> dict:
    """胡牌计分 score one win (``mjlab score luodisao``): :func:`._scorer.score_win`.

    ``score_hand(rules, hand, *, win, table="", from_seat=None, flip=False,
    tianhu=False, dihu=False, xing_card=None, seat=0, dealer=0) -> dict`` with ``rules``
    resolved, ``hand`` the concealed cards *including* the winning card (notation
    ``x1..x10 d1..d10 w``), ``table`` groups such as ``"peng:d3 pao:x5 chi:x1x2x3"``.
    The dict has ``complete``, ``patterns``, ``value``, ``deltas`` (as the mahjong
    scorers) and ``huxi``, ``xing``, ``tun``, ``fan``, ``red``, ``shape``, ``capped``,
    ``zuoxing_money``, ``notes``.
    """
    return score_win(VARIANT, rules, hand, **kwargs)


VARIANT = register(
    Variant(
        name="luodisao",
        long_name="祁阳落地扫 Qiyang luodisao (字牌)",
        # value reads the payouts (its colour aim, its passed wins scored by the scorer)
        value_blind=("random", "efficiency"),
        version=1,
        family="zipai",
        bot_layout=bot_layout,
        policies=("random", "efficiency", "value", "strong"),
        bot_params=bot_params,
        bot_targets=dict(colour=K.COLOUR_PATTERNS, method=K.METHOD_PATTERNS),
        options=OPTIONS,
        patterns=PATTERNS,
        extras=EXTRAS,
        pack=pack,
        value_unit="分 (囤 × 番)",
        doc=__doc__,
        players=3,
        bench_deals=100_000,
        rulebook_section="§4",
        hooks=K,
        players_of=players_of,
        exact=exact,
        score_hand=score_hand,
        report_budget=ReportBudget(
            main=80_000,
            sweep=32_000,
            skill=16_000,
            sensitivity_skill=4_000,
        ),
        headline_sweeps=(HeadlineSweep(("kings", "wang", "jokers"), "王 (joker) count"),),
        # a seat's match result has an SD of about 350 (16 deals, value bots)
        stated_amounts=(250, 500, 1000),
    )
)
