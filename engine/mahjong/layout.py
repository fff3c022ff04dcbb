"""Encodings of the mahjong-family game kernel: rule slots, context slots, melds, events.

A variant packs its resolved rule options into an int64 array ``rules`` (see
:meth:`engine.variants.Variant.pack`); the kernel reads the engine slots below, and the
variant's own kernels read the slots of the block :data:`R_VAR` (each variant lays its
block out with ``RULES.sub("var", ...)``). Changing an option changes array contents
only, so nothing is recompiled. The slots are handed out by :class:`engine._slots.Slots`
(fixed ``at=`` positions keep the numbers the kernels were written with; a block that
grows into the next one is refused at import).

The record row, win types and policy codes both families share live in
:mod:`engine.abi`; they are re-exported here for the mahjong kernels.
"""

from __future__ import annotations

from engine._slots import Slots
from engine.abi import (  # noqa: F401 - re-exported for the mahjong-family kernels
    C_DEALER,
    C_DELTA,
    C_DISCARDER,
    C_EXTRA,
    C_PAT_HI,
    C_PAT_LO,
    C_STREAK,
    C_TURNS,
    C_VALUE,
    C_WILDS,
    C_WIN_TYPE,
    C_WINNER,
    MAX_EXTRA,
    N_COLS,
    N_FIXED,
    P_EFFICIENCY,
    P_RANDOM,
    P_STRONG,
    P_VALUE,
    POLICY_NAMES,
    WIN_DISCARD,
    WIN_INSTANT,
    WIN_KONG_DRAW,
    WIN_NONE,
    WIN_ROB_KONG,
    WIN_SELF_DRAW,
    WIN_TYPE_NAMES,
)

# ---- rule slots (index into the packed int64 rules array) -----------------------------
N_RULES = 160
RULES = Slots("mahjong rules", limit=N_RULES)
R_VARIANT = RULES.block("variant")
"""Variant kernel id (see engine.play.mahjong.hooks)."""
R_TILESET = RULES.block("tileset")
"""136 or 144 (adds the flowers f1..f8)."""
R_SETS = RULES.block("sets")
"""Sets of a complete hand: 4 (13-tile games) or 5 (16-tile games)."""
R_CHOW = RULES.block("chow")
"""1: the discarder's next seat may chow (吃)."""
R_DISCARD_WIN = RULES.block("discard_win")
"""1: wins on a discard are allowed (点炮)."""
R_ROB_KONG = RULES.block("rob_kong")
"""1: a 补杠 may be robbed (抢杠)."""
R_WILD_MODE = RULES.block("wild_mode")
"""How wild kinds are chosen: 0 none, 1 the kinds after a flipped indicator, 2 the
indicator's own kind, 3 fixed kinds (R_WILD_FIXED0/1)."""
R_WILD_KINDS = RULES.block("wild_kinds")
"""Number of wild kinds (0, 1, 2)."""
R_WILD_FIXED0 = RULES.block("wild_fixed0")
R_WILD_FIXED1 = RULES.block("wild_fixed1")
R_INDICATOR = RULES.block("indicator")
"""Where the indicator is flipped: 0 the last tile of the wall, 1 the k-th from the tail
with k = 2d6 (丽水)."""
R_INDICATOR_LIVE = RULES.block("indicator_live")
"""1: the indicator stays in the wall and can be drawn (else it is set aside, dead)."""
R_STANDIN = RULES.block("standin")
"""1: the 4 白板 are ordinary tiles of the (first) wild kind (丽水 白板代财神)."""
R_WILD_DISCARD = RULES.block("wild_discard")
"""0: a wild can never be discarded; 1: it may be, the discard is dead (nobody claims or
wins it); 2: as 1 and the discarder pays R_WILD_DISCARD_FINE to each other player."""
R_WILD_DISCARD_FINE = RULES.block("wild_discard_fine")
R_WILD_DISCARD_SELFDRAW = RULES.block("wild_discard_selfdraw")
"""1: after discarding a wild the player may only win by self-draw (福州)."""
R_RESERVE = RULES.block("reserve")
"""Live tiles kept back at the end of the wall (a draw ends the deal when only these are
left)."""
R_ROT_WIN = RULES.block("rot_win")
"""Deal after a non-dealer win: 0 the winner deals, 1 the dealer's next seat."""
R_ROT_DRAW = RULES.block("rot_draw")
"""Deal after a drawn deal: 0 the dealer keeps it, 1 the next seat."""
R_SHAPES = RULES.block("shapes")
"""Winning shapes (engine.hand shape bit mask)."""
R_PASS_LOCK = RULES.block("pass_lock")
"""1: after passing a discard win a player may not win on a discard until his next draw."""
R_KONG_DRAW_FROM_TAIL = RULES.block("kong_draw_from_tail")
"""1: kong replacements come from the tail (always 1 in the current variants)."""
R_PLAYERS = RULES.block("players")
"""Number of seats (4)."""
R_VAR = RULES.block("var", 32, at=32)
"""First slot of the variant's own options (32..63)."""
# Engine slots 64..79: flowers, the dynamic reserve, the last group, opening wins (福州).
R_HONOR_FLOWERS = RULES.block("honor_flowers")
"""1: the honors 1z..7z are flowers too (福州: only the 108 suited tiles are played)."""
R_FLOWER_REPLACE = RULES.block("flower_replace")
"""1: flowers are set aside and replaced from the tail: at the deal in rounds (dealer
first; a seat that drew no new flower skips later rounds), during play at once."""
R_RESERVE_KONG = RULES.block("reserve_kong")
"""Tiles added to the reserve per 明杠 (a kong from a discard or a 补杠)."""
R_RESERVE_ANKONG = RULES.block("reserve_ankong")
"""Tiles added to the reserve per 暗杠."""
R_RESERVE_QUAD = RULES.block("reserve_quad")
"""Tiles added to the reserve when a seat holds four identical flowers (four 东 ...)."""
R_RESERVE_INDICATOR = RULES.block("reserve_indicator")
"""1: the set-aside indicator is one of the reserved tiles (it lies on the reserved
tail), so one live tile fewer is kept back."""
R_LAST_GROUP = RULES.block("last_group")
"""Size of the last group (福州 4): when a normal draw would leave at most this many live
tiles beyond the reserve, the seats draw them in turn with no discards, no flower
replacement and no claims; a drawn tile that completes a hand wins as a self-draw."""
R_INSTANT_WILDS = RULES.block("instant_wilds")
"""Holding this many wild tiles wins at once (福州 三金倒: 3); 0 never."""
R_OPENING = RULES.block("opening")
"""1: opening wins right after the deal and the indicator (福州): 天胡, then 三金倒, then a
non-dealer taking the indicator as a wild (抢金, nearest to the dealer first), then the
dealer discarding one tile and taking it."""
R_DRAW_ADDS_WINS = RULES.block("draw_adds_wins")
"""1: a drawn deal kept by the dealer counts as one more dealer win (X_DEALER_WINS)."""
R_KONG_NEEDS_LIVE = RULES.block("kong_needs_live")
"""1: a kong may be declared only when a replacement tile beyond the (raised) reserve is
left."""
R_YOUJIN = RULES.block("youjin")
"""1: 游金 (闽南): a seat whose discard leaves complete sets and a lone wild is 游ing: it
wins only by self-draw, discarding a further drawn wild raises the level (双游, 三游), and
while anyone 游s nobody wins on a discard."""
R_WIN_PRIORITY = RULES.block("win_priority")
"""1: when several seats can win on one discard, the variant's win_priority hook may put
a farther seat first (福州 金雀); 0: plain head bump (nearest seat wins)."""
R_PAY = RULES.block("pay", 63, at=96)
"""The variant's payout table (96..158): per-pattern values and other payout-only
numbers its ``pack`` writes from its payout options and its settle hook reads, so that
a payout option changes array contents only (engine.runs.rescore re-scores it)."""
R_BY_DEALER = RULES.block("by_dealer", at=N_RULES - 1)
"""Run setting, not a rule (set by engine.runs.run, never by a variant's pack): 1 reads the
policies and bot rows by place from the dealer (index 0 the dealer, 1 his 下家, ...) in
every deal, so a policy keeps its role through dealer changes; 0 reads them by seat."""

# ---- meld types -------------------------------------------------------------------------
M_CHOW = 1
M_PONG = 2
M_KONG = 3
"""明杠 from a discard (放杠)."""
M_ADDKONG = 4
"""补杠: a fourth tile added to one's pong."""
M_ANKONG = 5
"""暗杠: four concealed tiles."""
MELD_NAMES = ("", "chow", "pong", "kong", "addkong", "ankong")

# ---- tile roles (physical kind -> role) -------------------------------------------------
ROLE_WILD0 = 40
"""Role of a tile of the first wild kind (ROLE_WILD0 + slot for slot 0, 1)."""
ROLE_FLOWER = 50
N_PHYS = 42
"""Physical kinds: 0..33 as engine.tiles, 34..41 the flowers f1..f8."""

# ---- event log (replay) ------------------------------------------------------------------
E_DEAL = 1  # seat, -, -   (hand dealt: follows as E_TILE rows)
E_TILE = 2  # seat, phys kind, count
E_DRAW = 3  # seat, phys kind, from_tail
E_DISCARD = 4  # seat, phys kind
E_CLAIM = 5  # seat, meld type, logical kind, from seat
E_KONG = 6  # seat, meld type, phys kind, 1 if robbed (a 补杠 won on: not made)
E_WIN = 7  # seat, win type, phys kind, discarder
E_WILD = 8  # indicator phys kind, wild kind slot0, slot1
E_HORSE = 9  # phys kind, seat hit
E_DRAWN_GAME = 10
E_PAY = 11  # seat, delta
E_FLOWER = 12  # seat, phys kind, 1 if no replacement is drawn for it
E_PENALTY = 13  # seat (payer), amount each, reason
E_YOUJIN = 14  # seat, 游金 level reached
E_OPTION = 15  # seat, OPT_* choice, logical kind, taken (1) or not (0); a pass: PASS_* why
EVENT_COLS = 5
MAX_EVENTS = 1000

# ---- the choices a replay logs (E_OPTION), for the decision audit (mjlab audit) -----------
OPT_PONG = 1
"""A 碰 of the discard was open to the seat (taken: 1 if it claimed it, as 碰 or 明杠)."""
OPT_MINGKONG = 2
"""A 明杠 of the discard was open to the seat (taken: 1 if it made it)."""
OPT_CHOW = 3
"""A 吃 of the discard was open to the seat."""
OPT_ANKONG = 4
"""A 暗杠 was open to the seat in turn."""
OPT_ADDKONG = 5
"""A 补杠 was open to the seat in turn."""
OPT_PASS_DISCARD = 6
"""The seat passed a legal win on a discard (the last column: its PASS_* reason)."""
OPT_PASS_SELF = 7
"""The seat passed a legal self-drawn win."""
OPT_PASS_ROB = 8
"""The seat passed a legal win on a robbed 补杠."""
OPT_WAIT = 9
"""The seat's fourteen tiles could discard to a live wait (taken: 1 if its discard kept
one; 0: it broke the wait while a winning tile was still unseen)."""
PASS_JINQUE = 1
"""Passed to chase 金雀 (two wilds as the pair)."""
PASS_SELF_DRAW = 2
"""Passed a discard win to wait for a self-draw."""
PASS_YOUJIN = 3
"""Passed to 游金 (or to keep 游ing)."""

# ---- per-deal context slots (int64 array shared with the variant hooks) ------------------
N_MEMO = 64
"""Slots of the variant's memo block (X_MEMO)."""
CTX = Slots("mahjong deal context")
X_WILD0 = CTX.block("wild0")
"""Logical wild kinds of this deal (-1 if none)."""
X_WILD1 = CTX.block("wild1")
X_INDICATOR = CTX.block("indicator")
"""Physical kind of the flipped indicator (-1 if none)."""
X_DEALER = CTX.block("dealer")
X_STREAK = CTX.block("streak")
"""Consecutive deals the dealer has held before this one."""
X_DEALER_WINS = CTX.block("dealer_wins")
"""Consecutive wins of the dealer before this deal (丽水 底, 福州 连庄)."""
X_WINNER = CTX.block("winner")
X_WIN_TYPE = CTX.block("win_type")
X_DISCARDER = CTX.block("discarder")
X_WIN_KIND = CTX.block("win_kind")
"""Logical kind of the winning tile (-1 for a wild)."""
X_WIN_PHYS = CTX.block("win_phys")
X_KONG_FROM = CTX.block("kong_from")
"""For a win on a kong replacement: the seat that fed the 明杠 (放杠), else -1."""
X_TURNS = CTX.block("turns")
X_FIRST_TURN = CTX.block("first_turn")
"""1 while no discard has been claimed and the current turn is a seat's first (天胡/地胡)."""
X_KONGS = CTX.block("kongs")
X_NHORSE = CTX.block("nhorse")
X_HORSE = CTX.block("horse", 8)  # 16..23 physical kinds of the horses
X_CHOWS = CTX.block(
    "chows", 16, at=28
)  # 28..43 chows made by seat a from seat b's discards: 28 + 4*a + b
X_PENALTY = CTX.block("penalty", 4)  # 44..47 net penalty money per seat (误打财神, 被跟 ...)
X_NEVENT = CTX.block("nevent")
X_ROBBED = CTX.block("robbed")
"""Seat whose 补杠 was robbed, else -1."""
X_SEAT_DRAWS = CTX.block("seat_draws", 4, at=51)  # 51..54 draws each seat has made
X_DISCARDS_TOTAL = CTX.block("discards_total")
X_WILD_DISCARDED = CTX.block(
    "wild_discarded", 4, at=60
)  # 60..63 seat discarded a wild (福州: self-draw only afterwards)
X_GEN = CTX.block("gen")
"""Number of 被跟 events (four identical discards in a row)."""
X_LOCK = CTX.block("lock", 4, at=66)  # 66..69 pass lock per seat
X_VALUE = CTX.block("value", at=71)
"""The winning hand's value, for variants whose patterns hook computes it (诸暨 台)."""
X_RUN_KIND = CTX.block("run_kind")
"""Kind of the current run of identical consecutive discards (被跟), -1 none."""
X_RUN_LEN = CTX.block("run_len")
X_RUN_START = CTX.block("run_start")
"""Seat that started the run."""
X_SCRATCH = CTX.block("scratch", 16, at=80)
"""Slots 80..95 are free for a variant's own per-deal state."""
X_RESERVE = CTX.block("reserve")
"""Live tiles kept back now: R_RESERVE plus the kong and flower increments, minus the
indicator under R_RESERVE_INDICATOR."""
X_FLOWERS = CTX.block("flowers", 4)
"""97..100: flower tiles held per seat (filled at settlement)."""
X_FLOWER_QUADS = CTX.block("flower_quads", 4)
"""101..104: sets of four identical flowers per seat (four 东 ...)."""
X_FLOWER_SUITES = CTX.block("flower_suites", 4)
"""105..108: complete 春夏秋冬 / 梅兰竹菊 suites per seat."""
X_ROB_INDICATOR = CTX.block("rob_indicator")
"""1: the winner took the indicator as a wild (福州 抢金)."""
X_OPENING_WIN = CTX.block("opening_win")
"""1: the deal was won at the opening checks (R_OPENING)."""
X_LAST_GROUP = CTX.block("last_group")
"""1: the deal reached the last group (R_LAST_GROUP)."""
X_YOUJIN = CTX.block("youjin", 4)
"""112..115: 游金 level per seat (0 none, 1 单游, 2 双游, 3 三游)."""
X_WILD_DISCARDS = CTX.block("wild_discards")
"""Wild tiles discarded in the deal."""
X_DEAL_MAX_WILDS = CTX.block("deal_max_wilds")
"""The most wild tiles any seat held right after the indicator was turned."""
X_INDICATOR_POS = CTX.block("indicator_pos")
"""Wall position of the set-aside indicator, -1 if none."""
X_MINGKONGS = CTX.block("mingkongs")
"""明杠 (from a discard or 补杠) made in the deal."""
X_ANKONGS = CTX.block("ankongs")
"""暗杠 made in the deal."""
X_MEMO = CTX.block("memo", N_MEMO, at=128)
"""Slots 128..191 are free for a variant's per-deal memo of hand evaluations (诸暨: the
complete hands already refused, so a wait refused once is not re-evaluated on every
discard of its tile)."""
N_CTX = CTX.size
CTX.limit = N_CTX
