"""Shared encodings of the 字牌 game kernel: rule slots, table groups, events, zones.

The variant (:mod:`engine.variants.luodisao`) packs its resolved rule options into an
int64 array ``rules`` of :data:`Z_N` slots; changing an option changes array contents
only, so nothing is recompiled; the slots are handed out by :class:`engine._slots.Slots`.
The kernel writes the record row both families share (:mod:`engine.abi`: ``C_*``
columns, ``N_COLS`` wide) and the variant's extras from ``C_EXTRA`` on (declared by the
variant, as its patterns are).

Card codes everywhere: 0..19 the kinds of :mod:`engine.zipai.cards`, 20 a 王.
"""

from __future__ import annotations

from engine._slots import Slots

# ---- rule slots ---------------------------------------------------------------------------
Z_N = 64
RULES = Slots("zipai rules", limit=Z_N)
Z_SEATS = RULES.block("seats")
"""Seats at the table (2, 3 or 4); records carry one delta per seat."""
Z_ZUOXING = RULES.block("zuoxing")
"""1: 坐醒 form, four seats and the seat two after the dealer sits out (RULEBOOK §4.1
rule 3)."""
Z_KINGS = RULES.block("kings")
"""王 in the deck (0..4)."""
Z_MUST_WIN = RULES.block("must_win")
"""Who must win (rule 18): 0 a player without 王 must win on a discard, 1 every possible
win must be taken (有胡必胡), 2 no win is forced."""
Z_XING = RULES.block("xing")
"""醒 procedure (rule 21): 0 跟醒, 1 翻醒, 2 上醒, 3 下醒."""
Z_SHUANGXING = RULES.block("shuangxing")
"""1: 双醒, the 醒 count is doubled."""
Z_FAN_ADD = RULES.block("fan_add")
"""1: the 番 factors add instead of multiplying (rule 22)."""
Z_CAP = RULES.block("cap")
"""Most a payer loses on one win (0 no cap, 300, 600; rule 23)."""
Z_HZ_POOL = RULES.block("hz_pool")
"""黄庄 王 payments (rule 24): 0 pairwise differences, 1 pooled."""
Z_MIN_HUXI = RULES.block("min_huxi")
"""Fewest 胡息 of a winning hand (rule 17: 6)."""
Z_TUN_PER_XING = RULES.block("tun_per_xing")
"""囤 per 醒 (rule 20: 3; option ``tun_per_xing``)."""
Z_HZ_PER_WANG = RULES.block("hz_per_wang")
"""黄庄 payment per 王 (rule 24: 5; option ``huang_per_wang``)."""
Z_DEALER_CARDS = RULES.block("dealer_cards")
"""Cards dealt to the dealer (15)."""
Z_HAND_CARDS = RULES.block("hand_cards")
"""Cards dealt to the other players (14)."""
Z_VARIANT = RULES.block("variant")
"""The variant's kernel id: the loop calls its hooks by it (engine.play.zipai.hooks)."""
Z_VALUES = RULES.block("values", 20, at=16)
"""16..35: the 胡息 table, ``values[code, size]`` row-major (engine.zipai.huxi codes)."""
Z_VAR = RULES.block("var", 23, at=40)
"""40..62: the variant's own slots (its 番 table and colour bounds:
:mod:`engine.variants.luodisao._kernels` lays them out with ``RULES.sub("var")``)."""
Z_BY_DEALER = RULES.block("by_dealer", at=Z_N - 1)
"""Run setting (engine.runs.run), as ``R_BY_DEALER`` of engine.mahjong.layout: 1 reads the
policies and bot rows by place from the dealer in every deal."""

# ---- a win: how the winning card came, and the scoring output ------------------------------
HOW_TIANHU = 0
"""The dealer's dealt cards win (天胡)."""
HOW_SELF = 1
"""The winner turned the card up himself (自摸)."""
HOW_DISCARD = 2
"""A discard of another player."""
HOW_FLIP = 3
"""A card another player turned up from the stock."""

(O_VALUE, O_HUXI, O_XING, O_TUN, O_FAN, O_RED, O_BITS, O_SHAPE, O_UPGRADE, O_XK, O_SEED,
 O_XRAW) = range(12)  # fmt: skip
N_OUT = 12
"""Fields of a win's scoring output ``out`` (the variant's ``score_win_into`` hook fills
it): value (囤 × 番, -1 if no reading wins), 胡息, 醒, 囤, 番, red cards, pattern bits, 王
shape (0 plain, 1 王钓, 2 王闯, 3 王炸), whether the winning card joined a table group,
the 醒 kind used (-1 none), the reading's value under the table that chose it and the 醒
count before 双醒."""

# ---- table groups ---------------------------------------------------------------------------
T_CHI = 1
"""吃 (or 比) group: three cards, one possibly from another player."""
T_PENG = 2
T_XIAO = 3
T_CHOUXIAO = 4
"""臭啸: a 啸 of a card the player declined to 碰 (shown one up, two down)."""
T_QING = 5
T_PAO = 6
GROUP_NAMES = ("", "chi", "peng", "xiao", "chouxiao", "qing", "pao")
MAX_GROUPS = 8
"""Table groups a seat can hold (claims stop at 4 + the forced ones)."""

# ---- event log (replay) ---------------------------------------------------------------------
EV_DEAL = 1  # seat, card, count
EV_QING = 2  # seat, kind, how (0 dealt, 1 坎 + own flip, 2 啸 + own flip)
EV_FLIP = 3  # seat, card
EV_XIAO = 4  # seat, kind, chou (1 臭啸)
EV_PAO = 5  # seat, kind, from seat, how (0 坎, 1 啸, 2 碰)
EV_PENG = 6  # seat, kind, from seat
EV_CHI = 7  # seat, card, from seat, groups (EV_GROUP rows follow)
EV_GROUP = 8  # seat, a, b, c (the kinds of a 吃 or 比 group)
EV_DISCARD = 9  # seat, card
EV_PASS = 10  # seat, card, what (1 吃, 2 碰): 过张
EV_DEAD = 11  # card, seat whose card it was
EV_SISHOU = 12  # seat
EV_WIN = 13  # seat, win type, card, from seat
EV_XING = 14  # 醒 card (-1 none), 醒
EV_HUANG = 15  # -
EV_PAY = 16  # seat, delta
EV_MINGPAO = 17  # seat (冲明跑: may only 跑 or 胡 from now on)
EV_SCORE = 18  # huxi, xing, tun, fan
EV_ZUOXING = 19  # seat sitting out
EV_DECLINE = 20  # seat, card (an optional win passed)
EVENT_COLS = 5
MAX_EVENTS = 600

# ---- final zones (conformance) --------------------------------------------------------------
FZ_HAND = 0
"""0..3: each seat's concealed cards (index 20 = 王)."""
FZ_TABLE = 4
"""4..7: each seat's table cards."""
FZ_DEAD = 8
"""Unclaimed flipped and discarded cards."""
FZ_STOCK = 9
"""Cards left in the stock (a 翻醒 card is looked at and stays here)."""
FZ_FLIGHT = 10
"""The winning card when it is not in the winner's concealed hand or table."""
FZ_WIN_HAND = 11
"""The concealed cards the winning evaluation used (before the winning card)."""
FZ_INFO = 12
"""Winning evaluation inputs: see ``I_*``."""
N_ZONES = 13
I_CAND = 0
I_SELF = 1
I_TGROUPS = 2
I_THUXI = 3
I_TRED = 4
I_SHAPE = 5
"""0 plain, 1/2/3 the 王钓/王闯/王炸 shapes with that many 王 in the 王 group."""
I_HUXI = 6
I_RED = 7
I_NEED = 8
