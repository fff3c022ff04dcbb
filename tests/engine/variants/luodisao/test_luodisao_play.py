"""祁阳落地扫 in play: golden replay, conformance, determinism, exact 天胡, rule referee.

- The golden replay (``tests/golden/luodisao.txt``, ``pytest --regen`` rewrites it).
- Conformance (engine.runs.testing.check_variant -> engine.play.zipai.testing) for every policy
  and player count, the winning hands re-checked by the brute-force twin.
- Determinism: the same seed gives byte-identical records with 1 and 2 threads and
  any chunking.
- Exact P(天胡) (subset-construction programme) against the hand evaluator and the
  simulation.
- An independent referee replays the kernel's event log and checks each step against
  RULEBOOK §4.3-4.4 (forced 倾 / 啸 / 跑, the discard rules after 4-card groups, 过张,
  臭啸, 冲明跑, 王 holders).
- Stacked decks (engine.play.zipai.scenario) for the situations a random deal rarely shows.
"""

from pathlib import Path

import numpy as np
import pytest
from oracles import settlement as TW
from oracles import zipai_bruteforce as bf

from engine import simulate
from engine.mahjong import layout as L
from engine.play.zipai.replay import replay, replay_events
from engine.play.zipai.scenario import play_deck
from engine.runs.testing import check_variant
from engine.variants import get
from engine.zipai import exact, hand
from engine.zipai import layout as Z

V = get("luodisao")
GOLDEN = Path(__file__).parents[3] / "golden" / "luodisao.txt"


# --- the golden replay ------------------------------------------------------------------------


def test_golden_replay(regen):
    """`mjlab replay luodisao --seed 2 --match 10` pinned line by line (--regen rewrites):
    a value table's deal with a 吃, a 碰, a 跑 and a 倾."""
    text = replay("luodisao", 2, 10, 0) + "\n"
    if regen or not GOLDEN.exists():
        GOLDEN.write_text(text, encoding="utf-8")
    assert text == GOLDEN.read_text(encoding="utf-8")


def test_replay_reads_like_the_rules():
    text = replay("luodisao", 2, 10, 0)
    needles = ("dealer: seat", "turns up", "吃s", "碰s", "跑s", "倾", "wins", "醒", "囤")
    for needle in (*needles, "payments"):
        assert needle in text
    with pytest.raises(Exception, match="--deal"):
        replay("luodisao", 2, 0, 99)


# --- an independent referee of the event log (RULEBOOK §4.3-4.4) --------------------------------


class Referee:
    """Replays one deal's event log, checking every step against the rules.

    It keeps its own hands and tables from the events (sharing no code with the kernel)
    and, at each step, works out what the rules force: after a flip, 倾 when the flipper
    holds a 坎 or a 啸 of the card, 啸 when he holds a pair, else the card is shown and a
    跑 must follow if someone can make one (unless someone wins); the discards after
    each group (rule 11); 过张, 臭啸 and 冲明跑 (rule 13); 王 never discarded and 王
    holders winning only by self-draw (rule 14). At the end its hands must equal the
    kernel's final zones.
    """

    def __init__(self, seats, zx):
        self.seats, self.zx = seats, zx
        self.hand = np.zeros((seats, 21), int)
        self.alike = [dict() for _ in range(seats)]  # kind -> "peng" | "xiao" | "qing" | "pao"
        self.tcnt = np.zeros((seats, 20), int)
        self.npao = [0] * seats
        self.guo = set()  # (seat, kind): passed a 吃 or 碰 of it
        self.guo_peng = set()
        self.mingpao = set()
        self.counts = {"qing": 0, "xiao": 0, "pao": 0, "chi": 0, "peng": 0, "pass": 0}

    def nxt(self, s):
        n = (s + 1) % self.seats
        return (n + 1) % self.seats if n == self.zx else n

    def can_discard(self, s):
        return any(self.hand[s, k] in (1, 2) for k in range(20))

    def pao_seat(self, owner, c, flip):
        """The seat that must 跑 card ``c`` of ``owner`` (-1 none)."""
        for s in range(self.seats):
            if s == self.zx:
                continue
            kind = self.alike[s].get(c)
            if s != owner and (self.hand[s, c] == 3 or kind == "xiao"):
                return s
            if flip and kind == "peng":
                return s
        return -1

    def run(self, events):
        ev = [tuple(int(x) for x in row) for row in events]
        i = 0
        expect = None  # ("discard", seat) | ("flip", seat)
        first = True
        while i < len(ev):
            code, a, b, c, d = ev[i]
            if code == Z.EV_DEAL:
                self.hand[a, b] += c
            elif code == Z.EV_ZUOXING:
                pass
            elif code == Z.EV_QING and c == 0:
                assert self.hand[a, b] == 4
                self.hand[a, b] = 0
                self.alike[a][b] = "qing"
                self.tcnt[a, b] = 4
            elif code in (Z.EV_PAY, Z.EV_XING, Z.EV_SCORE, Z.EV_HUANG):
                pass
            elif code == Z.EV_WIN:
                if b == L.WIN_DISCARD:
                    assert self.hand[a, 20] == 0, "a 王 holder won on another's card"
                return ev[i:]
            elif code == Z.EV_DISCARD:
                assert expect in (None, ("discard", a)) or first, (expect, ev[i])
                assert b != 20, "a 王 was discarded"
                assert self.hand[a, b] in (1, 2), f"seat {a} discards {b} from {self.hand[a]}"
                self.hand[a, b] -= 1
                first = False
                i = self.claims(ev, i + 1, a, b, flip=False)
                expect = self._expect
                continue
            elif code == Z.EV_SISHOU:
                assert not self.can_discard(a), "死守 with a discardable card"
                expect = ("flip", self.nxt(a))
                first = False
            elif code == Z.EV_FLIP:
                assert expect in (None, ("flip", a)), (expect, ev[i])
                i = self.flip(ev, i + 1, a, b)
                expect = self._expect
                continue
            else:
                raise AssertionError(f"unexpected event {ev[i]}")
            i += 1
        return []

    def _skip_declines(self, ev, i):
        while i < len(ev) and ev[i][0] == Z.EV_DECLINE:
            i += 1
        return i

    def flip(self, ev, i, p, c):
        i = self._skip_declines(ev, i)
        if ev[i][0] == Z.EV_WIN:
            self._expect = None
            return i
        if c == 20:
            self.hand[p, 20] += 1
            self._expect = ("discard", p)
            return i
        kind = self.alike[p].get(c)
        if self.hand[p, c] == 3 or kind == "xiao":
            code, a, b, how, _ = ev[i]
            assert (code, a, b) == (Z.EV_QING, p, c), f"forced 倾 missing: {ev[i]}"
            assert how == (2 if kind == "xiao" else 1)
            self.hand[p, c] = 0
            self.alike[p][c] = "qing"
            self.tcnt[p, c] = 4
            self.counts["qing"] += 1
            self._expect = ("flip", self.nxt(p))  # 「提牌后不用出牌」
            return i + 1
        if self.hand[p, c] == 2:
            code, a, b, chou, _ = ev[i]
            assert (code, a, b) == (Z.EV_XIAO, p, c), f"forced 啸 missing: {ev[i]}"
            assert chou == int((p, c) in self.guo_peng), "臭啸 flag"
            self.hand[p, c] = 0
            self.alike[p][c] = "xiao"
            self.tcnt[p, c] = 3
            self.counts["xiao"] += 1
            self._expect = ("discard", p)  # 「啸后要出一张牌」
            return i + 1
        return self.claims(ev, i, p, c, flip=True)

    def claims(self, ev, i, owner, c, flip):
        i = self._skip_declines(ev, i)
        code = ev[i][0]
        if code == Z.EV_WIN:
            assert ev[i][1] != owner and ev[i][4] == owner
            self._expect = None
            return i
        must = self.pao_seat(owner, c, flip)
        if must >= 0:
            code, a, b, frm, how = ev[i]
            assert (code, a, b, frm) == (Z.EV_PAO, must, c, owner), f"forced 跑 missing: {ev[i]}"
            if not flip:
                assert how != 2, "跑 onto a 碰 from a discard"
            if how == 0:
                self.hand[a, c] = 0
            self.alike[a][c] = "pao"
            self.tcnt[a, c] = 4
            self.npao[a] += 1
            self.counts["pao"] += 1
            i += 1
            if how == 1 and not flip:
                if owner not in self.mingpao:
                    assert ev[i][:2] == (Z.EV_MINGPAO, owner), "冲明跑 missing"
                    self.mingpao.add(owner)
                    i += 1
            # 「第一次跑牌需要出牌,后面再次跑牌则不要出牌」
            self._expect = ("discard", a) if self.npao[a] == 1 else ("flip", self.nxt(a))
            return i
        passed_peng = -1
        while True:
            code, a, b, x, y = ev[i]
            if code == Z.EV_PASS:
                assert b == c
                if x == 2:
                    # Passing a 碰 leaves the 吃 of the same card open (rule 13).
                    self.guo_peng.add((a, c))
                    passed_peng = a
                else:
                    self.guo.add((a, c))
                self.counts["pass"] += 1
                i += 1
                continue
            if code == Z.EV_PENG:
                assert a != owner and self.hand[a, c] == 2, "碰 without a pair"
                assert (a, c) not in self.guo and a not in self.mingpao, "碰 after 过张 / 冲明跑"
                self.hand[a, c] -= 2
                self.alike[a][c] = "peng"
                self.tcnt[a, c] = 3
                self.counts["peng"] += 1
                self._expect = ("discard", a)
                return i + 1
            if code == Z.EV_CHI:
                if passed_peng >= 0 and passed_peng != a:
                    self.guo.add((passed_peng, c))
                allowed = (owner, self.nxt(owner)) if flip else (self.nxt(owner),)
                assert a in allowed, f"吃 by seat {a} of seat {owner}'s card"
                assert (a, c) not in self.guo and a not in self.mingpao, "吃 after 过张 / 冲明跑"
                ng = y
                before = self.hand[a].copy()
                self.hand[a, c] += 1
                for g in range(ng):
                    _, s2, k1, k2, k3 = ev[i + 1 + g]
                    kinds = sorted((k1, k2, k3))
                    assert bf.classify(kinds) is not None, f"吃 group {kinds} is no group"
                    assert c in kinds, "every 吃 / 比 group holds the claimed kind"
                    for k in kinds:
                        assert before[k] < 3, "吃 with a 坎 card"
                        assert self.hand[a, k] > 0, "吃 with a card not held"
                        self.hand[a, k] -= 1
                        self.tcnt[a, k] += 1
                assert self.hand[a, c] == 0, "下火: a copy of the claimed card stayed in hand"
                self.counts["chi"] += 1
                self._expect = ("discard", a)
                return i + 1 + ng
            if code == Z.EV_DEAD:
                assert (a, b) == (c, owner)
                if passed_peng >= 0:
                    self.guo.add((passed_peng, c))
                self._expect = ("flip", self.nxt(owner))
                return i + 1
            raise AssertionError(f"unexpected claim event {ev[i]}")


def referee_deals(n_matches, rules=None, policies="value", seed=11, match_length=3):
    """Referee every deal of ``n_matches`` matches; returns the summed action counts."""
    v = V
    resolved = v.resolve(rules)
    seats = v.n_players(resolved)
    totals = {}
    for m in range(n_matches):
        for d in range(match_length):
            events, row, final, _ = replay_events(
                "luodisao", seed, m, d, rules, policies, match_length
            )
            ref = Referee(seats, int(row["zuoxing"]))
            tail = ref.run(events)
            if int(row["winner"]) < 0:
                assert any(e[0] == Z.EV_HUANG for e in events.tolist())
            else:
                assert tail and tail[0][0] == Z.EV_WIN
            # The referee's hands and tables are the kernel's.
            for s in range(seats):
                if s == int(row["zuoxing"]):
                    continue
                assert np.array_equal(ref.hand[s], final[Z.FZ_HAND + s]), (m, d, s)
                assert np.array_equal(ref.tcnt[s], final[Z.FZ_TABLE + s, :20]), (m, d, s)
            for k, v_ in ref.counts.items():
                totals[k] = totals.get(k, 0) + v_
    return totals


@pytest.mark.parametrize(
    "rules, policies",
    [
        (None, "value"),
        (None, "random"),
        ({"kings": 3}, "efficiency"),
        ({"players": 4}, "value"),
        ({"players": 4, "zuoxing": True}, "random"),
        ({"players": 2, "kings": 0}, "efficiency"),
    ],
)
def test_referee_agrees_with_every_step(rules, policies):
    totals = referee_deals(25, rules, policies)
    # The sample exercises the rules it checks.
    assert totals["pao"] > 0 and totals["xiao"] > 0 and totals["chi"] > 0
    assert totals["peng"] > 0 and totals["pass"] > 0


# --- conformance (every policy, every player count) --------------------------------------------


@pytest.mark.parametrize(
    "rules",
    [
        None,
        {"players": 2},
        {"players": 4},
        {"players": 4, "zuoxing": True},
        {"kings": 0},
        {"kings": 4, "xing": "fan", "shuangxing": True},
        {"kings": 2, "xing": "shang", "cap": 300, "huangzhuang": "pool"},
        {"xing": "xia", "fan_combine": "add", "must_win": "any", "cap": 600},
        {"must_win": "none", "players": 4, "kings": 3},
    ],
)
def test_conformance(rules):
    """Every card accounted for, zero-sum, consistent records, wins re-checked by the twin."""
    n = check_variant("luodisao", matches=4, seed=21, rules=rules, complete=bf.evaluate)
    assert n == len(V.policies) * 4 * 8  # every policy, 4 matches of 8 deals


def test_conformance_catches_a_broken_record():
    from engine.play.zipai.testing import ZipaiConformanceError, check_deal, play_with_state

    frame, final, errors = play_with_state("luodisao", 2, seed=3)
    assert errors == 0
    i = int(np.flatnonzero(frame["winner"].to_numpy() >= 0)[0])
    frame.loc[i, "delta_0"] += 1
    with pytest.raises(ZipaiConformanceError, match="sum to 0"):
        check_deal(i, frame, final, V, V.resolve({}), bf.evaluate)
    frame.loc[i, "delta_0"] -= 1
    final[i, Z.FZ_DEAD, 0] += 1
    with pytest.raises(ZipaiConformanceError, match="accounted"):
        check_deal(i, frame, final, V, V.resolve({}), bf.evaluate)


def test_recompute_reads_tun_and_colour_from_the_record():
    """The value check goes back to 胡息, 醒 and the red cards: 囤 = 胡息 + 3 × 醒 and the
    colour flag of the red count, so an altered 胡息 or red count is caught at its row."""

    rules = V.resolve({})
    df = simulate("luodisao", 3000, seed=4, progress=False).to_pandas()
    assert TW.twin_mismatch(V, rules, df) is None
    won = np.flatnonzero(df["winner"].to_numpy() >= 0)
    i = int(won[0])
    bad = df.copy()
    bad.loc[i, "huxi"] += 3
    assert TW.twin_mismatch(V, rules, bad)[1].startswith("tun ")
    red = df["red"].to_numpy()
    j = int(won[(red[won] >= 2) & (red[won] <= 6)][0])  # no colour: 0 red makes 黑胡
    bad = df.copy()
    bad.loc[j, "red"] = 0
    want = "pat_heihu 0 but the twin gives 1 (1 deals disagree)"
    assert TW.twin_mismatch(V, rules, bad) == (j, want)


# --- determinism ------------------------------------------------------------------------


def test_same_seed_same_records_any_threads_and_chunks():
    """One deal, one stream: 1 or 2 threads and any chunking give identical records."""
    kw = dict(seed=9, rules={"kings": 2}, policies="value,random,efficiency", progress=False)
    one = simulate("luodisao", 700, workers=1, **kw).rec
    two = simulate("luodisao", 700, workers=2, **kw).rec
    chunked = simulate("luodisao", 700, workers=2, chunk_matches=3, **kw).rec
    assert np.array_equal(one, two) and np.array_equal(one, chunked)
    other = simulate("luodisao", 700, workers=1, **{**kw, "seed": 10}).rec
    assert not np.array_equal(one, other)


def test_shuffle_uses_the_wall_stream_only():
    """The same seed deals the same cards whatever the policies (paired comparisons)."""
    a = replay_events("luodisao", 4, 1, 0, None, "random", 1)[0]
    b = replay_events("luodisao", 4, 1, 0, None, "value", 1)[0]
    deal = lambda ev: ev[ev[:, 0] == Z.EV_DEAL].tolist()  # noqa: E731
    assert deal(a) == deal(b)


# --- exact 天胡 ---------------------------------------------------------------------------


def test_exact_count_reproduces_the_pinned_value():
    assert exact._count(0, hand.values_table(), 6) == exact.PINNED[0]


def test_exact_tianhu_values():
    p0 = exact.exact_tianhu(V.resolve({"kings": 0}))
    assert p0["tianhu"] == p0["tianhu_given_0_wang"]
    assert p0["tianhu"].denominator > 1 and abs(float(p0["tianhu"]) - 7.2112e-4) < 1e-7
    p1 = exact.exact_tianhu(V.resolve({}))
    # P(dealer holds the 王) = 15 / 81.
    assert p1["dealer_1_wang"] == 15 / 81 or float(p1["dealer_1_wang"]) == pytest.approx(15 / 81)
    want = (
        p1["dealer_0_wang"] * p1["tianhu_given_0_wang"]
        + p1["dealer_1_wang"] * (p1["tianhu_given_1_wang"])
    )
    assert p1["tianhu"] == want
    assert V.exact(V.resolve({})) == p1


@pytest.mark.parametrize("j", [0, 1])
def test_exact_agrees_with_the_hand_evaluator(j):
    """P(15 - j random real cards + j 王 win): the evaluator's rate inside a 4-sigma band."""
    rng = np.random.default_rng(5 + j)
    n = 300_000
    deck = np.repeat(np.arange(20), 4)
    picks = np.argpartition(rng.random((n, 80)), 15 - j, axis=1)[:, : 15 - j]
    counts = np.zeros((n, 20), np.uint8)
    np.add.at(counts, (np.repeat(np.arange(n), 15 - j), deck[picks].ravel()), 1)
    rate = hand.evaluate(counts, j).wins.mean()
    p = exact.complete_count(j) / __import__("math").comb(80, 15 - j)
    assert abs(rate - p) < 4 * np.sqrt(p * (1 - p) / n)


def test_simulated_tianhu_rate_matches_exact():
    """天胡 is decided by the deal alone: its simulated rate sits inside a 4-sigma band."""
    n = 40_000
    df = simulate("luodisao", n, seed=77, policies="random", progress=False).to_pandas()
    p = float(exact.exact_tianhu(V.resolve({}))["tianhu"])
    rate = df["pat_tianhu"].mean()
    assert abs(rate - p) < 4 * np.sqrt(p * (1 - p) / n)
    assert (df.loc[df.pat_tianhu, "win_type"] == "instant").all()


@pytest.mark.slow
@pytest.mark.parametrize("j", [1, 2])
def test_exact_counts_for_wang_are_reproducible(j):
    assert exact._count(j, hand.values_table(), 6) == exact.PINNED[j]


def test_exact_refuses_unpinned_kings():
    from engine.errors import UsageError

    missing = [j for j in range(5) if j not in exact.PINNED]
    if not missing:
        pytest.skip("every 王 count is pinned")
    with pytest.raises(UsageError, match="kings="):
        exact.exact_tianhu(V.resolve({"kings": max(missing)}))


# --- stacked decks: the situations a random deal rarely shows ----------------------------------

# The dealer (seat 0) holds four 坎 and 六七壹: 壹 is his only card in no partial group, so
# the efficiency bot discards it first; nobody else holds a card that claims it unless
# the scenario says so.
DEALER = "x1x1x1 x3x3x3 x5x5x5 d8d8d8 x6x7 d1"


def lines_in_order(text, *needles):
    """Each needle is found on a line after the previous one's line."""
    lines = text.splitlines()
    at = 0
    for needle in needles:
        while at < len(lines) and needle not in lines[at]:
            at += 1
        assert at < len(lines), f"{needle!r} not found in order in:\n{text}"
        at += 1
    return at


def deal(hands, stock="", kings=0, **kw):
    return play_deck(hands, stock, rules={"kings": kings, **kw}, policies="efficiency")


def test_hu_beats_pao_and_dihu():
    """Seat 2 wins on the dealer's first discard (地胡); seat 1's 坎 of it may not 跑 first."""
    d = deal(
        {
            0: DEALER,
            1: "d1d1d1 d9d9d9 x4x4 d5d5 d10d10 d7 x5",
            2: "d2d3 x2x7x10 d4d4d4 x8x9x10 d6d6d6",
        }
    )
    lines_in_order(
        d.text, "seat 0 discards d1", "seat 2 wins (discard) on d1 壹 discarded by seat 0"
    )
    assert "跑s" not in d.text
    assert d.row["pat_dihu"] and d.row["fan"] == 2 and d.row["delta_0"] == -2 * d.row["value"]


def test_wang_holder_passes_a_discard_and_pao_is_forced_then_repao_skips_the_discard():
    d = deal(
        {
            0: DEALER,
            1: "d1d1d1 d9d9d9 x4x4 d5d5 d10d10 d7 x5",
            2: "d2d3 x2x7x10 d4d4d4 x8x9x10 d6d6 w",  # the same hand, a 王 for the third 陆
        },
        "d9",
        kings=1,
    )
    # The 王 holder never wins on a discard (rule 14); seat 1's 坎 must 跑 (rule 10), and
    # the first 跑 costs a discard; the second 跑 (on seat 2's flip) does not: seat 2,
    # 下家 of seat 1, flips again at once (rule 11).
    lines_in_order(
        d.text,
        "seat 0 discards d1",
        "seat 1 跑s d1 壹 onto his 坎 (seat 0's card)",
        "seat 1 discards",
        "1. seat 2 turns up d9",
        "seat 1 跑s d9 玖 onto his 坎 (seat 2's card)",
        "2. seat 2 turns up",
    )
    assert "wins (discard) on d1" not in d.text


def test_qing_from_a_kan_needs_no_discard():
    d = deal({0: DEALER, 1: "d9d9d9 d2d7d10 x8x9x10 d4d5d6 x2 x4"}, "d9")
    at = lines_in_order(d.text, "1. seat 1 turns up d9", "seat 1 lays 倾 of d9 玖 (his 坎")
    assert d.text.splitlines()[at].startswith("  2. seat 2 turns up")


def test_xiao_then_qing_from_the_xiao():
    # Seat 1: a pair of 玖; it turns up 玖 (啸, then a discard), later the fourth 玖 (倾).
    d = deal({0: DEALER, 1: "d9d9 d2d7d10 x8x9x10 d4d5d6 x2 x4 d1"}, "d9 x9 x10 d9")
    lines_in_order(
        d.text,
        "1. seat 1 turns up d9",
        "seat 1 啸s d9 玖 with the pair in his hand",
        "seat 1 discards",
        "seat 1 turns up d9",
        "seat 1 lays 倾 of d9 玖 (his 啸 and his own flip; no discard)",
    )


def test_chongmingpao():
    """Seat 2 discards the card of seat 1's 啸: seat 1 跑s and seat 2 loses 吃 and 碰."""
    d = deal(
        {
            0: DEALER,
            1: "d9d9 d2d7d10 x8x9x10 d4d5d6 x2 x4 d1",
            2: "x6x6 d9 d3d3d3 x7x8x9 d5d6d7 x10 d10",
        },
        "d9 x6",
    )
    lines_in_order(
        d.text,
        "seat 1 啸s d9",
        "seat 2 啸s x6",
        "seat 2 discards d9",
        "seat 1 跑s d9 玖 onto his 啸 (seat 2's card)",
        "seat 2 fed a 跑 onto a 啸 (冲明跑)",
        "seat 1 discards",  # his first 跑
    )
    assert d.row["mingpao"] >= 1


def test_passing_a_peng_makes_a_later_xiao_chouxiao():
    # Seat 1 holds 壹壹贰叁 (壹贰叁 already whole: it passes the 碰 of the dealer's 壹, 过张)
    # and a 大坎 (so it is not short of 胡息); it then turns up the last 壹: 臭啸.
    d = deal({0: DEALER, 1: "d1d1 d2d3 d6d6d6 x8x9x10 x2x7x10 x4"}, "d1")
    lines_in_order(
        d.text,
        "seat 0 discards d1",
        "seat 1 passes the 碰 of d1",
        "1. seat 1 turns up d1",
        "seat 1 臭啸s d1 壹 with the pair in his hand (he passed a 碰 of it",
    )
    assert d.row["chouxiao"] >= 1 and d.row["guozhang"] >= 1


def test_sishou_after_a_forced_pao():
    # Seat 1 holds only 坎 and two 王: a 王 holder cannot win on the dealer's 壹, its 坎 of
    # 壹 must 跑, the first 跑 asks a discard, and nothing may be discarded: 死守.
    d = deal({0: DEALER, 1: "d1d1d1 x4x4x4 d5d5d5 x9x9x9 w w"}, kings=2)
    lines_in_order(
        d.text,
        "seat 1 跑s d1 壹 onto his 坎",
        "seat 1 has nothing to discard (死守)",
        "1. seat 2 turns up",
    )
    assert d.row["sishou"] == 1


def test_chi_options_meld_every_copy_xiahuo():
    """下火 (rule 12): 「手中有一二三四五时,用四五吃三,则手里的一二三也必须摆到桌面」."""
    from engine.play.zipai.loop import _chi_options
    from engine.zipai import cards

    def options(text, claimed):
        h = np.zeros((4, 21), np.int64)
        c, k = cards.parse(text)
        h[0, :20] = c
        h[0, 20] = k
        opts = np.zeros((48, 3, 5), np.int64)
        ng = np.zeros(48, np.int64)
        n = _chi_options(h, 0, cards.card(claimed), opts, ng)
        return [sorted(tuple(sorted(opts[i, g, 2:])) for g in range(ng[i])) for i in range(n)]

    got = options("x1x2x3x4x5", "x3")
    assert got and all(len(o) == 2 for o in got)  # always a 比 group for the held 三
    assert sorted([(0, 1, 2), (2, 3, 4)]) in got  # 四五吃三, 一二三 laid too
    # The held 三 cannot be melded: no 吃 at all.
    assert options("x3x4x5 d9", "x3") == []
    # No copy held: a plain 吃; a 坎 card is never used; a 坎 of the card means 跑.
    assert options("x4x5", "x3") == [[(2, 3, 4)]]
    assert options("x4x4x4x5", "x3") == []
    assert options("x3x3x3x4x5", "x3") == []


# --- bots and the options that change what they may do --------------------------------------


def test_distance_measure():
    from engine.zipai import bots as _bots
    from engine.zipai import cards

    def dist(text, need=5, huxi_now=6):
        h = np.zeros(21, np.int64)
        c, k = cards.parse(text)
        h[:20], h[20] = c, k
        unseen = np.maximum(4 - h[:20], 0)
        return _bots.distance(h, need, huxi_now, 6, unseen)

    complete = dist("x1x2x3 d2d7d10 x4x4d4 d5d5d5 x8x9x10")
    near = dist("x1x2x3 d2d7d10 x4x4d4 d5d5d5 x8x9 d1")
    assert complete == 0 < near <= 2
    # Five cards in no group or partial group together: two 门子 miss all six cards.
    assert dist("x1 x4 x8 d2 d5", need=2) == 6
    assert dist("x1 x4 x8 d2 d6", need=2) == 6 > dist("x1 x2 x8 d2 d6", need=2)
    assert dist("x1x2x3 d2d7d10 x4x4d4 d5d5d5 x8x9x10", huxi_now=3) == 1
    assert dist("x1x2x3 w w w", need=2) == 0  # 王 fill the gaps


def _declines(rules, n=120):
    out = []
    for m in range(n):
        ev = replay_events("luodisao", 3, m, 0, rules, "value", 1)[0].tolist()
        for i, e in enumerate(ev):
            if e[0] == Z.EV_DECLINE:
                # The shown card came from a discard when the last discard/flip before it
                # was a discard.
                src = next(x for x in reversed(ev[:i]) if x[0] in (Z.EV_FLIP, Z.EV_DISCARD))
                out.append(src[0])
    return out


def test_must_win_decides_which_wins_may_be_passed():
    """Rule 18: under the default a player without 王 never passes a discard win; under
    ``any`` nothing is passed; the value bot passes some flipped-card wins otherwise."""
    default = _declines({})
    assert default and Z.EV_DISCARD not in default
    assert _declines({"must_win": "any"}) == []
    assert Z.EV_DISCARD in _declines({"must_win": "none"}, 300)


def test_skill_matters():
    """The heuristic bots finish far more deals than random ones and beat them."""
    kw = dict(seed=17, progress=False, workers=1)
    rnd = simulate("luodisao", 3000, policies="random", **kw).to_pandas()
    eff = simulate("luodisao", 3000, policies="efficiency", **kw).to_pandas()
    assert (eff.winner < 0).mean() < (rnd.winner < 0).mean() - 0.05
    mixed = simulate("luodisao", 3000, policies="value,random,random", **kw).to_pandas()
    assert mixed.delta_0.mean() > 10
