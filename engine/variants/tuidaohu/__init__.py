"""广东推倒胡 (tuidaohu): Guangdong push-down with 买马 horses.

Rules
-----
RULEBOOK §5 (seed ``004_7b55575db842c0de.txt``): 136 tiles, dealer 14 / others 13; 碰 and
kongs only, no 吃; self-draw wins only (option ``dianpao``) plus 抢杠胡 on a 补杠; base 1,
self-draw ×2, any 大胡 ×2, 大胡 never stack; 抢杠胡 paid 3 shares by the robbed player;
杠上开花 after a 放杠 paid 3 shares by the feeder (杠爆全包); kong money 放杠 3, 补杠 1
from each, 暗杠 2 from each, settled at the end (also after a draw unless
``huangzhuang_huanggang``); dealer horses min(4, 1 + streak) from the tail, each copying
the hit seat's transfers onto the dealer; the winner deals next, the dealer keeps on a
win, a draw passes the deal to the dealer's 下家.

Payout options (re-scoring)
---------------------------
``huangzhuang_huanggang``, ``no_ghost_double``, ``horse_map`` and the ``pay_*`` options
change only what a deal pays, so recorded deals are paid again under them (``mjlab
rescore``, engine.runs.rescore): ``pay_base`` (底 1), ``pay_zimo`` (×2 off a discard),
``pay_<大胡>`` (×2 each; 大胡 never stack, the largest counts), ``pay_wugui`` (×2),
``pay_qianggang`` and ``pay_gangbao`` (the 3 shares the robbed or feeding seat pays),
the kong money ``pay_fanggang`` 3, ``pay_bugang`` 1, ``pay_angang`` 2 and ``pay_horse``
(times each horse copies, 1). The records carry what they read: the pattern flags and
``wilds_in_hand``, each seat's kongs (``kong_tally_s``), the horse tiles by class
(``horse_tiles``) and the 杠爆 feeder (``kong_feeder``). No bot reads them (the strong
bot's kong values are its own tuned parameters), so a re-score of any policy's records
equals a fresh simulation; the bots are just not re-tuned to the new values. A re-score
cannot change ``horses`` (the horse count: the horses leave the tail, so the wall
played changes), ``ghost``, ``four_ghost_win`` or ``dianpao``: simulate those.

Engine simplifications
----------------------
- The first dealer of each match is drawn at random (seed: 「仅第一局为系统随机定庄」).
- 四暗刻 is read on the concealed tiles with wilds; a triplet completed by a discard under
  ``dianpao`` still counts as concealed.
- Winner's horses (``horses=winner:N``): each horse naming the winner makes every payer
  pay his win amount once more (码跟底分).
- 跟庄, 节节高 and the other room switches of §5.5 rule 20 are not modelled (off by
  default in the RULEBOOK).

The strong policy
-----------------
``strong`` plays each discard for expected points. For every tile it could throw it
measures the distance of what is left to a plain hand and to each target (清一色, 混一色, 对对胡,
七对), the ukeire of the closest, and turns them into points with tables fitted from the
engine's own play (``mjlab fit``, committed in ``engine/variants/tuidaohu/strong.json``):
the chance to win from that distance, ukeire and live tiles, and what each kind of win
brings under this variant's scoring, dealer or not, plus the stake a seat loses when
someone else wins. Wins are self-drawn only (unless ``dianpao``), so the threats it
weighs are the chance that a 补杠 is robbed (抢杠, the kong player pays) and that a discard
lets an opponent make a 明杠 and collect kong money (放杠), from a logistic model of the
opponent's visible play; with ``dianpao`` the discard-win danger model applies as in the
other variants. 碰, 吃 and kongs are taken when the hand is worth more after them (with
tuned biases), counting kong money and the risk of being robbed. Because a kong pays as
much as a plain self-draw, each concealed triplet whose fourth copy is unseen adds
``strong.kong_hold`` points x (live bucket / 10) to the hand's value: it keeps a
triplet for its kong rather than break it for a wider hand. Its scalar weights are tuned
by self-play against ``value`` (``mjlab tune tuidaohu --policy strong``, then ``--only
claim_bias,kong_hold`` for the kong weight; the file names both commands). Measured by
dealer, 40,000 deals per seating, seed 2: strong over value +0.174 [+0.147, +0.201]
points per deal (without ``kong_hold``: -0.009 [-0.035, +0.018]).
It does not: search beyond the current decision, read an opponent's hand value or pace
beyond the fitted features (his latest three discards and his first six are all it reads
of their order), plan several discards ahead (a target counts only through its
distance); it does not reason about the 马 (horses), which pay as they fall.
"""

from __future__ import annotations

import numpy as np

from engine.mahjong import params as bot_layout

from .._base import HeadlineSweep, ReportBudget, RuleOption, Variant
from .._mahjong import engine_rules, strong_defaults
from .._registry import register
from .._scoring import melds8, pattern_names, settle_hand, win_context
from . import _kernels as K

GHOSTS = ("none", "baiban", "fan", "shuang")
HORSES = ("dealer",) + tuple(str(i) for i in range(9)) + tuple(f"winner:{n}" for n in (2, 4, 6, 8))

_BIG = tuple(p.name for p in K.PATTERNS if p.big)
_HANZI = {p.name: p.hanzi for p in K.PATTERNS}
_VALUE = {p.name: p.value for p in K.PATTERNS}
"""Each pattern's declared value: the default of its ``pay_<name>`` option."""

PAY_TABLE = (
    ("pay_base", K.T_BASE, 1, range(1, 11), "底分 of a win (分).", "§5.3 rule 10"),
    (
        "pay_zimo",
        K.T_ZIMO,
        2,
        range(1, 9),
        "Factor of a win not on a discard (自摸, 杠上开花, 抢杠胡, 四鬼胡).",
        "§5.3 rule 10",
    ),
    (
        "pay_wugui",
        K.T_WUGUI,
        _VALUE["wugui"],
        range(1, 9),
        "Factor of a 无鬼 win under no_ghost_double (鬼 in play).",
        "§5.1 rule 2",
    ),
    (
        "pay_qianggang",
        K.T_QIANGGANG,
        _VALUE["qianggang"],
        range(0, 9),
        "Shares of the win amount the robbed 补杠 player pays for 抢杠胡 (he alone pays).",
        "§5.3 rule 11",
    ),
    (
        "pay_gangbao",
        K.T_GANGBAO,
        3,
        range(0, 9),
        "Shares the feeder of a 放杠 pays for the 杠上开花 after it (杠爆全包; he alone pays).",
        "§5.3 rule 12",
    ),
    (
        "pay_fanggang",
        K.T_FANGGANG,
        3,
        range(0, 13),
        "Kong money of a 明杠 on a discard, paid by the discarder (分).",
        "§5.2 rule 6",
    ),
    (
        "pay_bugang",
        K.T_BUGANG,
        1,
        range(0, 9),
        "Kong money of a 补杠, paid by each other seat (分).",
        "§5.2 rule 6",
    ),
    (
        "pay_angang",
        K.T_ANGANG,
        2,
        range(0, 9),
        "Kong money of a 暗杠, paid by each other seat (分).",
        "§5.2 rule 6",
    ),
    (
        "pay_horse",
        K.T_HORSE,
        1,
        range(0, 5),
        "Times each horse copies what it copies (the hit seat's transfers onto the dealer, "
        "or the winner's amount from each payer again under horses=winner:N).",
        "§5.4 rules 17-18",
    ),
)
"""The numeric payout options: key, payout-table slot, default, range, doc, RULEBOOK."""


def _pay_options() -> tuple[RuleOption, ...]:
    out = [
        RuleOption(key, default, tuple(rng), f"{doc} Default {default}.", book, payout=True)
        for key, _, default, rng, doc, book in PAY_TABLE
    ]
    for name in _BIG:
        out.append(
            RuleOption(
                f"pay_{name}",
                _VALUE[name],
                tuple(range(1, 17)),
                f"Multiplier of a {_HANZI[name]} win (大胡, default ×{_VALUE[name]}); 大胡 never "
                "stack: the largest multiplier of the hand counts.",
                "§5.3 rules 9-10",
                payout=True,
            )
        )
    return tuple(out)


PAY_OPTIONS = _pay_options()

PAYOUT_PATTERN = {
    **{f"pay_{n}": n for n in _BIG},
    "pay_wugui": "wugui",
}
"""The pattern each pattern-value option pays for: it can move no payment in a sample
without that pattern (the re-score tests check that an idle option's pattern is absent).
Not no_ghost_double: it decides whether 无鬼 is flagged at all."""

RESCORE_CONTEXT = {
    "no_ghost_double": {"ghost": "fan"},
    "pay_wugui": {"ghost": "fan", "no_ghost_double": True},
    "pay_sigui": {"ghost": "shuang", "four_ghost_win": True},
}
"""The rules under which each payout option that is idle under the defaults pays (无鬼 and
四鬼胡 need 鬼 in play): a re-score test of it plays there."""

OPTIONS = (
    RuleOption(
        "dianpao",
        False,
        (False, True),
        "Allow winning on a discard (点炮); the discarder alone pays the plain amount "
        "(no self-draw factor); one winner, head bump.",
        "§5.2 rule 4",
    ),
    RuleOption(
        "huangzhuang_huanggang",
        False,
        (False, True),
        "Kong money is void when the deal is drawn (荒庄荒杠).",
        "§5.2 rule 6",
        payout=True,
    ),
    RuleOption(
        "ghost",
        "none",
        GHOSTS,
        "Wild tiles (鬼): none; baiban = the 4 白板; fan = the kind after a flipped "
        "indicator (4 tiles); shuang = the two kinds after it (8 tiles). The "
        "indicator is set aside.",
        "§5.1 rule 2",
    ),
    RuleOption(
        "four_ghost_win",
        False,
        (False, True),
        "Holding four 鬼 wins at once (counts as a 大胡).",
        "§5.1 rule 2",
    ),
    RuleOption(
        "no_ghost_double",
        False,
        (False, True),
        "A win whose hand holds no 鬼 pays double (无鬼加倍), when 鬼 are in play.",
        "§5.1 rule 2",
        payout=True,
    ),
    RuleOption(
        "horses",
        "dealer",
        HORSES,
        "买马: dealer = the dealer buys min(4, 1 + streak) horses; 0..8 = the dealer "
        "buys that many every deal (for sweeps); winner:N = the winner's N horses.",
        "§5.4 rules 14-18",
    ),
    RuleOption(
        "horse_map",
        "seed",
        ("seed", "mil"),
        "Horse tile to seat: seed = 1 5 9 东 中 dealer, 2 6 南 发 下家, 3 7 西 白 对家, "
        "4 8 北 上家; mil = 中 下家, 发 对家, 白 上家.",
        "§5.4 rule 16",
        payout=True,
    ),
    *PAY_OPTIONS,
)

PATTERNS = K.PATTERNS
"""The scoring patterns, in bit order (declared with their detectors in the kernel module)."""

EXTRAS = K.EXTRAS
"""The extra record columns, in index order (declared with the kernels that write them)."""


VALUE_BOT = dict(flush=3, pairs=3, triplets=2)
"""Value-bot target bonuses in quarter tiles (清一色, 七对子, 碰碰胡)."""

VALUE_BOT_KONG_SLACK = 1.0
"""The value bot makes a kong that leaves its hand up to one tile farther
(``value.kong_slack``): kong money (暗杠 6, 补杠 3, 放杠 3 in all) is worth as much as a plain
self-draw (2 from each). Measured by dealer, 20,000 deals per place, seed 2: value over
efficiency +0.054 [+0.043, +0.065] points per deal with it, +0.005 [-0.005, +0.015]
without (slack 4: +0.055)."""


BOT_TARGETS = dict(flush=("qingyise",), half=("hunyise",), triplets=("sianke",), pairs=("qidui",))
"""The patterns of each strong-policy target (engine.runs.fit)."""


def bot_params(policy, rules) -> dict:
    """Default bot parameters of ``policy`` (the value bot's target bonuses)."""
    if policy == "strong":
        # kong money from the run's payout table: 暗杠 and 补杠 from each other seat, 放杠
        # from the feeder alone (what feeding one costs)
        others = 3.0
        return strong_defaults(
            kong_an=others * rules["pay_angang"], kong_add=others * rules["pay_bugang"],
            kong_ming=float(rules["pay_fanggang"]), feed_kong=float(rules["pay_fanggang"]),
            rob=3.0, kong_hold=0.0,
        )  # fmt: skip
    return dict(VALUE_BOT, kong_slack=VALUE_BOT_KONG_SLACK) if policy == "value" else {}


def pack(rules) -> np.ndarray:  # noqa: F821 - numpy array
    """Packed int64 rules for the kernel."""
    ghost = GHOSTS.index(rules["ghost"])
    wild = dict(wild_mode=0, wild_kinds=0)
    if ghost == 1:
        wild = dict(wild_mode=3, wild_kinds=1, wild_fixed=(31, -1))
    elif ghost == 2:
        wild = dict(wild_mode=1, wild_kinds=1)
    elif ghost == 3:
        wild = dict(wild_mode=1, wild_kinds=2)
    r = engine_rules(
        kernel_id=K.KERNEL_ID,
        chow=False,
        discard_win=rules["dianpao"],
        rob_kong=True,
        wild_discard=1,
        shapes=("standard", "seven_pairs", "thirteen_orphans"),
        rot_win_next=False,
        rot_draw_next=True,
        **wild,
    )
    r[K.T_DIANPAO] = int(rules["dianpao"])
    r[K.T_HUANGGANG] = int(rules["huangzhuang_huanggang"])
    r[K.T_GHOST] = ghost
    r[K.T_FOUR_GHOST] = int(rules["four_ghost_win"])
    r[K.T_NO_GHOST_DOUBLE] = int(rules["no_ghost_double"])
    horses = rules["horses"]
    if horses == "dealer":
        r[K.T_HORSE_MODE], r[K.T_HORSE_N] = 0, 0
    elif horses.startswith("winner:"):
        r[K.T_HORSE_MODE], r[K.T_HORSE_N] = 2, int(horses.split(":")[1])
    else:
        r[K.T_HORSE_MODE], r[K.T_HORSE_N] = 1, int(horses)
    r[K.T_HORSE_MAP] = 0 if rules["horse_map"] == "seed" else 1
    for key, slot, *_ in PAY_TABLE:
        r[slot] = rules[key]
    for i, p in enumerate(K.PATTERNS):
        r[K.T_BIG + i] = rules[f"pay_{p.name}"] if p.big else 1
    return r


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
    **_,
):
    """Score one winning hand (the ``mjlab score`` calculator); horses not included.

    Parameters follow engine.variants._scoring.score_request: ``counts`` logical
    concealed tiles with the winning tile, ``wilds`` 鬼 held, ``melds`` (n, 3) rows.
    Flags: ``tianhu`` (the dealer's first fourteen), ``gangkai`` / ``qianggang`` (set the
    win type), ``fanggang`` (the kong before 杠上开花 was fed by the ``--from`` seat),
    ``sigui`` (四鬼胡: the four 鬼 held win at once under four_ghost_win, whatever the other
    tiles; a self-draw, as the game loop declares it on the draw that brings the fourth).
    """
    from engine.mahjong import layout as L

    from ...errors import UsageError
    from ...hand import is_complete
    from ...hand._tables import kernel_tables

    kong_from = -1
    if "fanggang" in flags:
        if win_type != L.WIN_DISCARD or discarder is None:
            raise UsageError("--flag fanggang goes with --flag gangkai --from SEAT (the feeder)")
        kong_from, win_type = discarder, L.WIN_KONG_DRAW
        discarder = None
    if "sigui" in flags:
        if discarder is not None or win_type != L.WIN_SELF_DRAW:
            raise UsageError("--flag sigui is a self-draw: it takes no --from and no other flag")
        if not rules["four_ghost_win"] or rules["ghost"] == "none":
            raise UsageError(
                "--flag sigui needs 鬼 in play and --rule four_ghost_win=true "
                "(e.g. --rule ghost=shuang --rule four_ghost_win=true)"
            )
        if wilds != 4:
            raise UsageError(f"--flag sigui needs four 鬼 in HAND (named by --wild), got {wilds}")
        win_type = L.WIN_INSTANT
    if win_type == L.WIN_DISCARD and not rules["dianpao"]:
        raise UsageError("tuidaohu wins by self-draw only; a discard win needs --rule dianpao=true")
    r = pack(rules)
    sets = 4 - len(melds)
    shapes = ("standard", "seven_pairs", "thirteen_orphans")
    complete = win_type == L.WIN_INSTANT or bool(
        is_complete(counts.astype(np.uint8), wilds, sets, shapes)
    )
    out = {"complete": complete, "patterns": [], "value": 0, "deltas": [0, 0, 0, 0]}
    if not complete:
        return out
    ctx = win_context(seat, dealer, win_type, melds, feeder=discarder, flags=flags)
    ctx[L.X_STREAK] = streak
    ctx[L.X_KONG_FROM] = kong_from
    ctx[L.X_WILD0] = 0 if rules["ghost"] != "none" else -1
    tab = kernel_tables()
    bits = int(
        K.patterns(r, ctx, counts.astype(np.int64), wilds, sets, melds8(melds), len(melds), tab)
    )
    value, out["deltas"], _ = settle_hand(K.settle, r, ctx, bits)
    out["patterns"] = pattern_names(PATTERNS, bits)
    out["value"] = value
    return out


def exact_tianhu(rules) -> dict:
    """Exact P(天胡): the dealer's 14 dealt tiles are complete, under the 鬼 option.

    The horses and the 鬼 indicator leave from the tail, so the dealer's tiles are a uniform
    14 of the rest: ghost=fan/shuang average over the flipped indicator (set aside; the
    wild kinds keep 4 copies), baiban makes the 4 白板 wild. 四鬼胡 at the deal
    (four_ghost_win) is not counted.
    """
    from ... import exact

    wild = {"none": (), "baiban": "5z", "fan": "flip", "shuang": "flip2"}[rules["ghost"]]
    p = exact.p_complete(136, 14, wild=wild)
    out = {"tianhu": p["any"]}
    out.update({f"tianhu_{k}": v for k, v in p.items() if k != "any"})
    out["note"] = "the dealer's 14 tiles complete in any shape (standard, 七对, 十三幺)"
    return out


VARIANT = register(
    Variant(
        name="tuidaohu",
        long_name="广东推倒胡 Guangdong push-down (买马)",
        # its bonuses are constants, not the payout options: its re-scores are exact
        version=2,
        family="mahjong",
        bot_layout=bot_layout,
        options=OPTIONS,
        patterns=PATTERNS,
        extras=EXTRAS,
        pack=pack,
        value_unit="分",
        doc=__doc__,
        bench_deals=200_000,
        rulebook_section="§5",
        hooks=K,
        score_hand=score_hand,
        score_flags=("tianhu", "gangkai", "qianggang", "fanggang", "sigui"),
        exact=exact_tianhu,
        bot_params=bot_params,
        bot_targets=BOT_TARGETS,
        payout_pattern=PAYOUT_PATTERN,
        rescore_context=RESCORE_CONTEXT,
        report_budget=ReportBudget(
            main=48_000,
            sweep=12_800,
            skill=9_600,
            sensitivity_skill=4_000,
        ),
        headline_sweeps=(
            HeadlineSweep(("ghost",), "鬼 (ghost wildcard) option"),
            HeadlineSweep(("horses",), "买马 horse count", ("0", "1", "2", "3", "4")),
        ),
        # a seat's match result has an SD of about 22 分 (16 deals, value bots)
        stated_amounts=(20, 50, 100),
    )
)
