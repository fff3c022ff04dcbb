"""Brute-force twin of the 诸暨 台 scorer (engine.variants.zhuji._kernels.evaluate).

It lists every decomposition of a winning hand's concealed tiles into sets and a pair,
with the 财神 filling groups (any kind, fifth copies included: RULEBOOK §0.1), scores
each one with the 台 rules of RULEBOOK §2.3 read literally from its groups (an honor
kind's 台 once however many triplets of it there are, §0.1), and takes the best reading
that may be declared, with its patterns. No tables, no shortcuts shared with the engine.

Groups are ``("T", kind)`` triplet, ``("S", kind)`` sequence starting at ``kind``,
``("P", kind)`` pair. Every real tile belongs to exactly one group. Groups made of 财神
alone are listed by representative kinds: a triplet of each honor and of one kind per
suit, a sequence in each suit, a pair of each honor and of one kind per suit; the 台
rules only see a group's type, suit and (for triplets) its honor kind, so this loses
no reading.
"""

from __future__ import annotations

from functools import lru_cache
from itertools import combinations_with_replacement

HONOR_TAI = {27: 2, 31: 1, 32: 1, 33: 1}
"""台 per triplet: 东 2, 白 发 中 1 each."""

CHOW, PONG, KONG, ADDKONG, ANKONG = 1, 2, 3, 4, 5
SELF_DRAW, DISCARD, ROB_KONG, KONG_DRAW = 1, 2, 3, 4

_WILD_SETS = tuple(("T", k) for k in range(27, 34)) + tuple(
    g for s in range(3) for g in (("T", 9 * s + 4), ("S", 9 * s + 3))
)
_WILD_PAIRS = tuple(("P", k) for k in range(27, 34)) + tuple(("P", 9 * s + 4) for s in range(3))


def _suit(k: int) -> int:
    return k // 9 if k < 27 else 3


@lru_cache(maxsize=200_000)
def decompositions(counts: tuple, wilds: int, sets: int, pairs: int = 1) -> tuple:
    """Every decomposition (a sorted tuple of groups) of ``counts`` + ``wilds`` 财神 into
    ``sets`` sets and ``pairs`` pairs using every real tile."""
    out = set()
    k = next((i for i, c in enumerate(counts) if c), -1)
    if k < 0:
        if 3 * sets + 2 * pairs != wilds:
            return ()
        for s_groups in combinations_with_replacement(_WILD_SETS, sets):
            for p_groups in combinations_with_replacement(_WILD_PAIRS, pairs):
                out.add(tuple(sorted(s_groups + p_groups)))
        return tuple(out)
    c = list(counts)
    options = []
    if sets > 0:
        use = min(c[k], 3)
        options.append((("T", k), {k: use}, 3 - use, 1, 0))
        if k < 27:
            lo = 9 * (k // 9)
            for start in (k - 2, k - 1, k):
                if start < lo or start > lo + 6:
                    continue
                take = {}
                need = 0
                for j in range(start, start + 3):
                    if j >= k and c[j] > 0:
                        take[j] = 1
                    else:
                        need += 1
                options.append((("S", start), take, need, 1, 0))
    if pairs > 0:
        use = min(c[k], 2)
        options.append((("P", k), {k: use}, 2 - use, 0, 1))
    for group, take, need, ds, dp in options:
        if need > wilds:
            continue
        rest = c.copy()
        for j, n in take.items():
            rest[j] -= n
        for sub in decompositions(tuple(rest), wilds - need, sets - ds, pairs - dp):
            out.add(tuple(sorted((group,) + sub)))
    return tuple(out)


def pair_decompositions(counts: tuple, wilds: int) -> list:
    """Seven-pairs readings: pairs of real tiles (four alike = two pairs), a 财神 with each
    single, the other 财神 in pairs of any kind."""
    groups = []
    need = 0
    for k, c in enumerate(counts):
        groups += [("P", k)] * ((c + 1) // 2)
        need += c % 2
    spare = wilds - need
    if spare < 0 or spare % 2 or len(groups) + spare // 2 != 7:
        return []
    return [
        tuple(sorted(groups + list(extra)))
        for extra in combinations_with_replacement(_WILD_PAIRS, spare // 2)
    ]


HONOR_NAMES = {27: "dongfeng", 31: "bai", 32: "fa", 33: "zhong"}
"""Pattern of a triplet of each honor kind that has 台."""


def score_reading(groups, melds, wilds, win_type):
    """Ordinary 台 (RULEBOOK §2.3 rules 13-16) of one reading, whether it is 全字牌, and
    the names of its ordinary patterns.

    melds: iterable of (type, kind) exposed melds. A pattern that names a kind counts
    once per kind (RULEBOOK §0.1): a second triplet of an honor (wilds as its fifth to
    seventh copies, or beside a melded pong) adds nothing.
    """
    tai = 0
    names = set()
    sets = [g for g in groups if g[0] != "P"]
    trips = {k for t, k in sets if t == "T"} | {k for t, k in melds if t != CHOW}
    for k in trips:
        if k in HONOR_TAI:
            tai += HONOR_TAI[k]
            names.add(HONOR_NAMES[k])
    pair_shape = len(groups) == 7
    if pair_shape:
        names.add("qidui")
    else:
        if all(t == "S" for t, _ in sets) and all(t == CHOW for t, _ in melds):
            tai += 1
            names.add("pinghu")
        if all(t == "T" for t, _ in sets) and all(t != CHOW for t, _ in melds):
            tai += 1
            names.add("duiduihu")
    suits = {_suit(k) for _, k in groups} | {_suit(k) for _, k in melds}
    number = suits - {3}
    quan = not number
    if len(number) == 1:
        if 3 in suits:
            tai += 1
            names.add("hunyise")
        else:
            tai += 3
            names.add("qingyise")
    if quan:
        names.add("quanzipai")
    if wilds >= 3:
        tai += 2
        names.add("sancaishen")
    if win_type == KONG_DRAW:
        tai += 1
        names.add("gangkai")
    if win_type == ROB_KONG:
        tai += 1
        names.add("qianggang")
    return tai, quan, names


def readings(counts, wilds, melds, seven_pairs=False):
    """Every reading of the concealed tiles (tuples of groups)."""
    sets = 4 - len(melds)
    out = list(decompositions(tuple(int(x) for x in counts), int(wilds), sets))
    if seven_pairs and sets == 4:
        out += pair_decompositions(tuple(int(x) for x in counts), int(wilds))
    return out


def guiwei(counts, wilds, melds, wild_kinds, seven_pairs=False):
    """Whether every 财神 can stand for its own kind (some split between two kinds), with
    at most four tiles of a kind."""
    counts = [int(x) for x in counts]
    if len(wild_kinds) == 1:
        splits = [(wilds,)]
    else:
        splits = [(a, wilds - a) for a in range(wilds + 1)]
    for split in splits:
        c = counts.copy()
        for k, n in zip(wild_kinds, split, strict=True):
            c[k] += n
        if max(c) <= 4 and readings(c, 0, melds, seven_pairs):
            return True
    return False


def tai(
    counts,
    wilds,
    melds=(),
    *,
    win_type=SELF_DRAW,
    first_turn=False,
    dealer=True,
    wilds_in_play=True,
    wild_kinds=(),
    wucai="strict",
    special8="max",
    min_tai=3,
    seven_pairs=False,
):
    """Best 台 of a hand: ``dict(complete, legal, value, ordinary, quan, patterns)``.

    counts : 34 concealed real counts with the winning tile; wilds : 财神 held;
    melds : (type, kind) exposed melds; first_turn : 天胡 (``dealer``) / 地胡 context.

    The reading paid is the most valuable one that may be declared (ordinary 台 >=
    ``min_tai``, or 全字牌), ties to the most ordinary 台; ``ordinary`` is that reading's,
    ``patterns`` the pattern-name sets (sorted tuples) of every reading that ties with
    it. A hand no reading of which may be declared reports its best reading the same
    way, with ``legal`` false.
    """
    melds = [(int(t), int(k)) for t, k in melds]
    rs = readings(counts, wilds, melds, seven_pairs)
    if not rs:
        return {
            "complete": False,
            "legal": False,
            "value": 0,
            "ordinary": 0,
            "quan": False,
            "patterns": [],
        }
    context = set()
    if first_turn and win_type == SELF_DRAW and not melds:
        context.add("tianhu" if dealer else "dihu")
    if wilds_in_play:
        if wilds == 0 or (wucai == "guiwei" and guiwei(counts, wilds, melds, wild_kinds)):
            context.add("wucai")
    scored = []
    for groups in rs:
        o, quan, names = score_reading(groups, melds, wilds, win_type)
        v = o
        if context or quan:
            v = 8 + o if special8 == "add" else max(8, o)
        scored.append((quan or o >= min_tai, v, o, quan, tuple(sorted(names | context))))
    legal = any(r[0] for r in scored)
    pool = [r for r in scored if r[0] == legal]
    best = max((v, o) for _, v, o, _, _ in pool)
    return {
        "complete": True,
        "legal": legal,
        "value": best[0],
        "ordinary": best[1],
        "quan": any(r[3] for r in scored),
        "patterns": sorted({r[4] for r in pool if (r[1], r[2]) == best}),
    }
