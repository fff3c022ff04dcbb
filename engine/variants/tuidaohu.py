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
engine's own play (``mjlab fit``, committed in ``engine/botdata/tuidaohu/strong.json``):
the chance to win from that distance, ukeire and live tiles, and what each kind of win
brings under this variant's scoring, dealer or not, plus the stake a seat loses when
someone else wins. Wins are self-drawn only (unless ``dianpao``), so the threats it
weighs are the chance that a 补杠 is robbed (抢杠, the kong player pays) and that a discard
lets an opponent make a 明杠 and collect kong money (放杠), from a logistic model of the
opponent's visible play; with ``dianpao`` the discard-win danger model applies as in the
other variants. 碰, 吃 and kongs are taken when the hand is worth more after them (with
tuned biases), counting kong money and the risk of being robbed. Its scalar weights are
tuned by self-play against ``value`` (``mjlab tune tuidaohu --policy strong``).
It does not: search beyond the current decision, use the order of an opponent's
discards, read an opponent's hand value or pace beyond the fitted features, plan several
discards ahead (a target counts only through its distance); it does not reason about the
马 (horses), which pay as they fall.
"""

from __future__ import annotations

import numpy as np

from ..game import _params as bot_layout
from . import _tuidaohu as K
from ._base import RuleOption, Variant
from ._mahjong import engine_rules, strong_defaults
from ._registry import register
from ._scoring import RecordView, melds8, pattern_names, settle_hand, win_context

GHOSTS = ("none", "baiban", "fan", "shuang")
HORSES = ("dealer",) + tuple(str(i) for i in range(9)) + tuple(f"winner:{n}" for n in (2, 4, 6, 8))

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
    ),
)

PATTERNS = K.PATTERNS
"""The scoring patterns, in bit order (declared with their detectors in the kernel module)."""

EXTRAS = (
    "horses",
    "horse_hits",
    "kongs",
    "kong_money_0",
    "kong_money_1",
    "kong_money_2",
    "kong_money_3",
    "horse_money_0",
    "horse_money_1",
    "horse_money_2",
    "horse_money_3",
)


VALUE_BOT = dict(flush=3, pairs=3, triplets=2)
"""Value-bot target bonuses in quarter tiles (清一色, 七对子, 碰碰胡)."""

VALUE_BOT_KONG_SLACK = 1.0
"""The value bot makes a kong that leaves its hand up to one tile farther
(``value.kong_slack``): kong money (暗杠 6, 补杠 3, 放杠 3 in all) is worth as much as a plain
self-draw (2 from each). Measured by dealer, 20,000 deals per place, seed 2: value over
efficiency +0.054 [+0.043, +0.065] points per deal with it, +0.005 [-0.005, +0.015]
without (slack 4: +0.055)."""


BOT_TARGETS = dict(flush=("qingyise",), half=("hunyise",), triplets=("sianke",), pairs=("qidui",))
"""The patterns of each strong-policy target (engine.fit)."""


def bot_params(policy, rules) -> dict:
    """Default bot parameters of ``policy`` (the value bot's target bonuses)."""
    if policy == "strong":
        return strong_defaults(kong_an=6.0, kong_add=3.0, kong_ming=3.0, feed_kong=3.0, rob=3.0)
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

    Parameters follow engine.variants._scoring.score_from_args: ``counts`` logical
    concealed tiles with the winning tile, ``wilds`` 鬼 held, ``melds`` (n, 3) rows.
    Flags: ``tianhu`` (the dealer's first fourteen), ``gangkai`` / ``qianggang`` (set the
    win type), ``fanggang`` (the kong before 杠上开花 was fed by the ``--from`` seat).
    """
    from ..errors import UsageError
    from ..game import _layout as L
    from ..hand import is_complete
    from ..hand._tables import kernel_tables

    kong_from = -1
    if "fanggang" in flags:
        if win_type != L.WIN_DISCARD or discarder is None:
            raise UsageError("--flag fanggang goes with --flag gangkai --from SEAT (the feeder)")
        kong_from, win_type = discarder, L.WIN_KONG_DRAW
        discarder = None
    if win_type == L.WIN_DISCARD and not rules["dianpao"]:
        raise UsageError("tuidaohu wins by self-draw only; a discard win needs --rule dianpao=true")
    r = pack(rules)
    sets = 4 - len(melds)
    shapes = ("standard", "seven_pairs", "thirteen_orphans")
    complete = bool(is_complete(counts.astype(np.uint8), wilds, sets, shapes))
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
    from .. import exact

    wild = {"none": (), "baiban": "5z", "fan": "flip", "shuang": "flip2"}[rules["ghost"]]
    p = exact.p_complete(136, 14, wild=wild)
    out = {"tianhu": p["any"]}
    out.update({f"tianhu_{k}": v for k, v in p.items() if k != "any"})
    out["note"] = "the dealer's 14 tiles complete in any shape (standard, 七对, 十三幺)"
    return out


def recompute(rules, frame) -> dict:
    """The record columns that the pattern flags fix (the conformance check).

    ``value`` = 1 x 2 (not a discard win) x 2 (any 大胡 flag) x 2 (无鬼); the win money:
    a discard is paid by the discarder, a robbed kong by the kong player (3 shares), a
    self-draw by each other seat; every delta is that plus its kong and horse money. A
    杠上开花 is paid like a self-draw, or after a 放杠 by the feeder alone (3 shares,
    杠爆全包); the record does not name the feeder, so a seat whose win money is the 3
    shares is taken as him and the other two must then have paid nothing.
    """
    r = RecordView(frame, 4)
    big = np.logical_or.reduce([r.pat(p.name) for p in PATTERNS if p.big])
    amount = 1 * np.where(r.is_type("discard"), 1, 2) * np.where(big, 2, 1)
    amount = amount * np.where(r.pat("wugui"), 2, 1)
    value = np.where(r.won, amount, 0)
    side = np.stack(
        [r.col(f"kong_money_{s}") + r.col(f"horse_money_{s}") for s in range(4)], axis=1
    )
    win_money = np.stack([r.col(f"delta_{s}") for s in range(4)], axis=1) - side
    seats = np.arange(4)[None, :]
    full = r.is_type("kong_draw")[:, None] & (seats != r.winner[:, None])
    full &= win_money == -3 * value[:, None]
    feeder = np.where(full.any(axis=1), full.argmax(axis=1), -1)
    fed = r.is_type("kong_draw") & (feeder >= 0)
    paid = np.where(
        r.is_type("discard")[:, None],
        r.one(r.discarder, value),
        np.where(r.is_type("rob_kong")[:, None], r.one(r.discarder, 3 * value), r.others(value)),
    )
    paid = np.where(fed[:, None], r.one(feeder, 3 * value), paid)
    deltas = r.deltas(paid)
    for s in range(4):
        deltas[f"delta_{s}"] = deltas[f"delta_{s}"] + side[:, s]
    return {"value": value, **deltas}


VARIANT = register(
    Variant(
        name="tuidaohu",
        long_name="广东推倒胡 Guangdong push-down (买马)",
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
        kernel_id=K.KERNEL_ID,
        hooks=K,
        score_hand=score_hand,
        score_flags=("tianhu", "gangkai", "qianggang", "fanggang"),
        exact=exact_tianhu,
        recompute=recompute,
        bot_params=bot_params,
        bot_targets=BOT_TARGETS,
    )
)
