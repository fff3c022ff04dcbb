"""Shared encodings of the mahjong-family game kernel: rule slots, record columns, codes.

A variant packs its resolved rule options into an int64 array ``rules`` (see
:meth:`engine.variants.Variant.pack`); the kernel reads the engine slots below, and the
variant's own kernels read the slots from :data:`R_VAR` on. Changing an option changes
array contents only, so nothing is recompiled.
"""

from __future__ import annotations

# ---- rule slots (index into the packed int64 rules array) -----------------------------
R_VARIANT = 0
"""Variant kernel id (see engine.game._hooks)."""
R_TILESET = 1
"""136 or 144 (adds the flowers f1..f8)."""
R_SETS = 2
"""Sets of a complete hand: 4 (13-tile games) or 5 (16-tile games)."""
R_CHOW = 3
"""1: the discarder's next seat may chow (吃)."""
R_DISCARD_WIN = 4
"""1: wins on a discard are allowed (点炮)."""
R_ROB_KONG = 5
"""1: a 补杠 may be robbed (抢杠)."""
R_WILD_MODE = 6
"""How wild kinds are chosen: 0 none, 1 the kinds after a flipped indicator, 2 the
indicator's own kind, 3 fixed kinds (R_WILD_FIXED0/1)."""
R_WILD_KINDS = 7
"""Number of wild kinds (0, 1, 2)."""
R_WILD_FIXED0 = 8
R_WILD_FIXED1 = 9
R_INDICATOR = 10
"""Where the indicator is flipped: 0 the last tile of the wall, 1 the k-th from the tail
with k = 2d6 (丽水)."""
R_INDICATOR_LIVE = 11
"""1: the indicator stays in the wall and can be drawn (else it is set aside, dead)."""
R_STANDIN = 12
"""1: the 4 白板 are ordinary tiles of the (first) wild kind (丽水 白板代财神)."""
R_WILD_DISCARD = 13
"""0: a wild can never be discarded; 1: it may be, the discard is dead (nobody claims or
wins it); 2: as 1 and the discarder pays R_WILD_DISCARD_FINE to each other player."""
R_WILD_DISCARD_FINE = 14
R_WILD_DISCARD_SELFDRAW = 15
"""1: after discarding a wild the player may only win by self-draw (福州)."""
R_RESERVE = 16
"""Live tiles kept back at the end of the wall (a draw ends the deal when only these are
left)."""
R_ROT_WIN = 17
"""Deal after a non-dealer win: 0 the winner deals, 1 the dealer's next seat."""
R_ROT_DRAW = 18
"""Deal after a drawn deal: 0 the dealer keeps it, 1 the next seat."""
R_SHAPES = 19
"""Winning shapes (engine.hand shape bit mask)."""
R_PASS_LOCK = 20
"""1: after passing a discard win a player may not win on a discard until his next draw."""
R_KONG_DRAW_FROM_TAIL = 21
"""1: kong replacements come from the tail (always 1 in the current variants)."""
R_PLAYERS = 22
"""Number of seats (4)."""
R_HORSES = 23
"""Horses drawn from the tail at the start (set by the variant's setup, 0 otherwise)."""
R_VAR = 32
"""First slot of the variant's own options (32..63)."""
# Engine slots 64..79: flowers, the dynamic reserve, the last group, opening wins (福州).
R_HONOR_FLOWERS = 64
"""1: the honors 1z..7z are flowers too (福州: only the 108 suited tiles are played)."""
R_FLOWER_REPLACE = 65
"""1: flowers are set aside and replaced from the tail: at the deal in rounds (dealer
first; a seat that drew no new flower skips later rounds), during play at once."""
R_RESERVE_KONG = 66
"""Tiles added to the reserve per 明杠 (a kong from a discard or a 补杠)."""
R_RESERVE_ANKONG = 67
"""Tiles added to the reserve per 暗杠."""
R_RESERVE_QUAD = 68
"""Tiles added to the reserve when a seat holds four identical flowers (four 东 ...)."""
R_RESERVE_INDICATOR = 69
"""1: the set-aside indicator is one of the reserved tiles (it lies on the reserved
tail), so one live tile fewer is kept back."""
R_LAST_GROUP = 70
"""Size of the last group (福州 4): when a normal draw would leave at most this many live
tiles beyond the reserve, the seats draw them in turn with no discards, no flower
replacement and no claims; a drawn tile that completes a hand wins as a self-draw."""
R_INSTANT_WILDS = 71
"""Holding this many wild tiles wins at once (福州 三金倒: 3); 0 never."""
R_OPENING = 72
"""1: opening wins right after the deal and the indicator (福州): 天胡, then 三金倒, then a
non-dealer taking the indicator as a wild (抢金, nearest to the dealer first), then the
dealer discarding one tile and taking it."""
R_DRAW_ADDS_WINS = 73
"""1: a drawn deal kept by the dealer counts as one more dealer win (X_DEALER_WINS)."""
R_KONG_NEEDS_LIVE = 74
"""1: a kong may be declared only when a replacement tile beyond the (raised) reserve is
left."""
R_YOUJIN = 75
"""1: 游金 (闽南): a seat whose discard leaves complete sets and a lone wild is 游ing: it
wins only by self-draw, discarding a further drawn wild raises the level (双游, 三游), and
while anyone 游s nobody wins on a discard."""
R_WIN_PRIORITY = 76
"""1: when several seats can win on one discard, the variant's win_priority hook may put
a farther seat first (福州 金雀); 0: plain head bump (nearest seat wins)."""
R_BY_DEALER = 95
"""Run setting, not a rule (set by engine.run, never by a variant's pack): 1 reads the
policies and bot rows by place from the dealer (index 0 the dealer, 1 his 下家, ...) in
every deal, so a policy keeps its role through dealer changes; 0 reads them by seat."""
N_RULES = 96

# ---- record columns (int32 per deal) ---------------------------------------------------
C_DEALER = 0
C_STREAK = 1
C_WINNER = 2
C_WIN_TYPE = 3
C_DISCARDER = 4
C_TURNS = 5
C_WILDS = 6
C_VALUE = 7
C_DELTA = 8  # 8..11
C_PAT_LO = 12
C_PAT_HI = 13
C_EXTRA = 14
N_FIXED = 14
MAX_EXTRA = 24
N_COLS = N_FIXED + MAX_EXTRA

# ---- win types (the record's win_type) --------------------------------------------------
WIN_NONE = 0
WIN_SELF_DRAW = 1
WIN_DISCARD = 2
WIN_ROB_KONG = 3
WIN_KONG_DRAW = 4
WIN_INSTANT = 5
WIN_TYPE_NAMES = ("none", "self_draw", "discard", "rob_kong", "kong_draw", "instant")

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
MAX_MELDS = 6

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
EVENT_COLS = 5
MAX_EVENTS = 600

# ---- policies -----------------------------------------------------------------------------
P_RANDOM = 0
P_EFFICIENCY = 1
P_VALUE = 2
P_STRONG = 3
POLICY_NAMES = ("random", "efficiency", "value", "strong")

# ---- per-deal context slots (int64 array shared with the variant hooks) ------------------
X_WILD0 = 0
"""Logical wild kinds of this deal (-1 if none)."""
X_WILD1 = 1
X_INDICATOR = 2
"""Physical kind of the flipped indicator (-1 if none)."""
X_DEALER = 3
X_STREAK = 4
"""Consecutive deals the dealer has held before this one."""
X_DEALER_WINS = 5
"""Consecutive wins of the dealer before this deal (丽水 底, 福州 连庄)."""
X_WINNER = 6
X_WIN_TYPE = 7
X_DISCARDER = 8
X_WIN_KIND = 9
"""Logical kind of the winning tile (-1 for a wild)."""
X_WIN_PHYS = 10
X_KONG_FROM = 11
"""For a win on a kong replacement: the seat that fed the 明杠 (放杠), else -1."""
X_TURNS = 12
X_FIRST_TURN = 13
"""1 while no discard has been claimed and the current turn is a seat's first (天胡/地胡)."""
X_KONGS = 14
X_NHORSE = 15
X_HORSE = 16  # 16..23 physical kinds of the horses
X_KONG_MONEY = 24  # 24..27 net kong money per seat (settled at the end)
X_CHOWS = 28  # 28..43 chows made by seat a from seat b's discards: 28 + 4*a + b
X_PENALTY = 44  # 44..47 net penalty money per seat (误打财神, 被跟 ...)
X_NEVENT = 48
X_ROBBED = 49
"""Seat whose 补杠 was robbed, else -1."""
X_DRAWS = 50
"""Draws each seat has made (bit field: draws of seat s in 51 + s)."""
X_SEAT_DRAWS = 51  # 51..54
X_DISCARDS_TOTAL = 55
X_LAST_DISCARDS = 56  # 56..59 the last four discards in order (被跟)
X_WILD_DISCARDED = 60  # 60..63 seat discarded a wild (福州: self-draw only afterwards)
X_GEN = 64
"""Number of 被跟 events (four identical discards in a row)."""
X_HORSE_HITS = 65
X_LOCK = 66  # 66..69 pass lock per seat
X_DEAL_TILES = 70
"""Tiles of the set (136/144)."""
X_VALUE = 71
"""The winning hand's value, for variants whose patterns hook computes it (诸暨 台)."""
X_RUN_KIND = 72
"""Kind of the current run of identical consecutive discards (被跟), -1 none."""
X_RUN_LEN = 73
X_RUN_START = 74
"""Seat that started the run."""
X_SCRATCH = 80
"""Slots 80..95 are free for a variant's own per-deal state."""
X_RESERVE = 96
"""Live tiles kept back now: R_RESERVE plus the kong and flower increments, minus the
indicator under R_RESERVE_INDICATOR."""
X_FLOWERS = 97
"""97..100: flower tiles held per seat (filled at settlement)."""
X_FLOWER_QUADS = 101
"""101..104: sets of four identical flowers per seat (four 东 ...)."""
X_FLOWER_SUITES = 105
"""105..108: complete 春夏秋冬 / 梅兰竹菊 suites per seat."""
X_ROB_INDICATOR = 109
"""1: the winner took the indicator as a wild (福州 抢金)."""
X_OPENING_WIN = 110
"""1: the deal was won at the opening checks (R_OPENING)."""
X_LAST_GROUP = 111
"""1: the deal reached the last group (R_LAST_GROUP)."""
X_YOUJIN = 112
"""112..115: 游金 level per seat (0 none, 1 单游, 2 双游, 3 三游)."""
X_WILD_DISCARDS = 116
"""Wild tiles discarded in the deal."""
X_DEAL_MAX_WILDS = 117
"""The most wild tiles any seat held right after the indicator was turned."""
X_INDICATOR_POS = 118
"""Wall position of the set-aside indicator, -1 if none."""
X_MINGKONGS = 119
"""明杠 (from a discard or 补杠) made in the deal."""
X_ANKONGS = 120
"""暗杠 made in the deal."""
X_MEMO = 128
"""Slots 128..191 are free for a variant's per-deal memo of hand evaluations (诸暨: the
complete hands already refused, so a wait refused once is not re-evaluated on every
discard of its tile)."""
N_MEMO = 64
N_CTX = X_MEMO + N_MEMO
