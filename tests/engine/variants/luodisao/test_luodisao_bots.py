"""落地扫 bots on reproduced positions (issue 44): what value and strong claim, keep and pass.

- value claims by what a claim does: it 吃s a 0-胡息 句 that makes a 门子 of two loose
  cards (the dealer's first discard, a stacked deal), and passes one that breaks a big
  pair worth more as 碰 / 啸, unless its pair weight is 0.
- strong keeps a pair worth more as 碰 / 啸 than a 0-胡息 吃 (the same stacked position),
  and takes the 吃 once the pair has nothing left to become.
- Both read the rules they play: value's passed wins follow ``pay_zimo``, its colour aim
  the colour factors; strong's win values follow the 番 factors, 囤 per 醒 and players
  (:func:`engine.play.zipai.loop.derive_values` against its definition), and both play
  differently when a payout changes where no win may be passed.
"""

from __future__ import annotations

import numpy as np
import pytest

from engine.abi import P_EFFICIENCY, P_VALUE
from engine.play.bots import seat_bots
from engine.play.zipai import loop as Z
from engine.play.zipai.audit import audit_zipai
from engine.play.zipai.scenario import play_deck
from engine.play.zipai.testing import play_with_state
from engine.variants import get
from engine.variants.luodisao._kernels import _values
from engine.zipai import cards
from engine.zipai import params as P
from engine.zipai.bots import colour_weight, value_chi

V = get("luodisao")
RULES = V.resolve({})
VALUES = _values(V.pack(RULES))

# The dealer (efficiency) holds four 坎, 六七 and a lone 伍: 伍 is his first discard.
DEALER = "x1x1x1 x3x3x3 x5x5x5 d8d8d8 x6x7 d5"


def _first_claim(hand1: str, policies: str) -> str:
    """The lines of seat 1's answer to the dealer's first discard, 伍."""
    d = play_deck({0: DEALER, 1: hand1}, rules={"kings": 0}, policies=policies)
    lines = d.text.splitlines()
    at = next(i for i, line in enumerate(lines) if "seat 0 discards d5" in line)
    return "\n".join(lines[at + 1 : at + 3])


def test_value_chis_a_zero_huxi_ju_that_makes_a_menzi():
    """肆 and 陆 are loose; 吃 伍 makes 肆伍陆 (a 句, 0 胡息), a 门子 for two cards that were
    only a partial group. The value bot on main passed every 0-胡息 吃."""
    got = _first_claim("d4 d6 x2x7x10 x8x9x10 d1d2d3 d10d10 x4", "efficiency,value,efficiency")
    assert "seat 1 吃s d5" in got and "d4d5d6" in got


def _value_chi(text: str, claimed: str, **params):
    """The value bot's 吃 of ``claimed`` for the hand ``text`` (seat 0, nothing seen but
    its own cards, 30 cards in the stock): the groups it lays, or None."""
    _, rows = seat_bots(V, RULES, ["value"] * 3, {0: params})
    hand = np.zeros((4, 21), np.int64)
    counts, kings = cards.parse(text)
    hand[0, :20], hand[0, 20] = counts, kings
    c = cards.card(claimed)
    opts, ng = np.zeros((48, 3, 5), np.int64), np.zeros(48, np.int64)
    n = Z._chi_options(hand, 0, c, opts, ng)
    used = np.zeros(20, np.int64)
    ok = [j for j in range(n) if Z._option_ok(hand, 0, c, opts, j, ng, 0, used)]
    opts, ng = opts[ok], ng[ok]
    unseen = np.maximum(4 - hand[0, :20], 0)
    unseen[c] -= 1
    hx = sum(int(VALUES[4, q // 10]) for q in range(20) if hand[0, q] == 3)
    i = value_chi(rows[0], hand[0], c, opts, ng, len(ok), VALUES, hx, 6, 5, unseen, 30, 3,
                  np.zeros(21, np.int64))  # fmt: skip
    if i < 0:
        return None
    return [[cards.card_name(x) for x in opts[i, g, 2:]] for g in range(ng[i])]


@pytest.mark.parametrize(
    "text", ["d4 d5d5 x2x7x10 x8x9x10 d1d2d3 d10 x1 x4", "d3d4 d5d5 x2x7x10 x8x9x10 d1 d10d10 x4"]
)
def test_value_keeps_a_big_pair_worth_more_than_a_zero_huxi_chi(text):
    """吃 陆 with 肆伍 (a 句, 0 胡息) breaks the pair of 伍, a 碰 of 3 胡息 or a 啸 of 6 to be:
    the value bot passes; weighing the pair at 0, it takes the 吃."""
    assert _value_chi(text, "d6") is None
    assert _value_chi(text, "d6", pair=0.0) == [["d4", "d5", "d6"]]


def test_value_takes_the_chi_when_the_pair_is_small():
    """The same shape in small cards: a pair of 五 is at most a 碰 of 1 or a 啸 of 3."""
    assert _value_chi("x4 x5x5 x2x7x10 x8x9x10 d1d2d3 d10d10 d4", "x6") == [["x4", "x5", "x6"]]


# ---- the rules they read ----------------------------------------------------------------


def test_value_passes_wins_by_the_self_draw_factor():
    """With no win forced (must_win=none) the value bot passes a win on another player's
    card for the self-draw race, scored under the run's 自摸 factor: never worth it at ×1
    on these deals, more often at ×4 than at the seat's ×2. (On main it passed on the
    self-draw chance alone, the same wins under every factor.)"""
    passed = {}
    for zimo in (1, 2, 4):
        rules = V.resolve({"must_win": "none", "pay_zimo": zimo})
        passed[zimo] = audit_zipai(V, rules, 11, 96, "value")["win_passed"]
    assert passed[1] < passed[2] < passed[4]


def test_value_colour_aim_reads_the_colour_factors():
    assert colour_weight(P_VALUE, 1, 4, 2) == -6  # the seed: shed red toward 黑胡 ×4
    assert colour_weight(P_VALUE, 7, 4, 2) == 4  # keep red toward 红胡 ×2
    assert colour_weight(P_VALUE, 1, 1, 2) == 0  # 黑胡 and 一点朱 pay ×1: nothing to chase
    assert colour_weight(P_VALUE, 1, 16, 2) == -12 and colour_weight(P_VALUE, 8, 4, 8) == 12
    assert colour_weight(P_VALUE, 4, 4, 2) == 0 and colour_weight(P_EFFICIENCY, 1, 4, 2) == 0


@pytest.mark.parametrize(
    ("policy", "payout"),
    [("value", {"pay_heihu": 1, "pay_yidianzhu": 1}), ("strong", {"pay_heihu": 16}),
     ("strong", {"tun_per_xing": 0}), ("strong", {"pay_honghu": 8})],
)  # fmt: skip
def test_play_changes_with_a_payout_where_no_win_may_be_passed(policy, payout):
    """Under must_win=any no win is passed, so a payout option can change a deal only
    through the bots' own play, here with the committed parameters (no refit): on main
    the value bot played these deals exactly as under the default payouts, and the
    strong bot's fitted win values did not move with the rules."""
    base, _, _ = play_with_state("luodisao", 40, 21, {"must_win": "any"}, policy)
    other, _, _ = play_with_state("luodisao", 40, 21, {"must_win": "any", **payout}, policy)
    cols = ["turns", "winner", "huxi"]
    changed = (base[cols].to_numpy() != other[cols].to_numpy()).any(axis=1).sum()
    assert changed >= 5


def _derive_py(row, rules, active):
    """The twin of derive_values from its docstring: mean 番 and 囤 of the fitted win
    composition under the run's rules over the same under the fit's."""
    fit = row[P.M_FIT_RULES : P.M_FIT_RULES + P.N_FAN + 5]
    packed = V.pack(rules)
    from engine.variants.luodisao._kernels import BIT, Z_F

    run_f = packed[Z_F : Z_F + P.N_FAN].astype(float)
    colours = [None, "heihu", "yidianzhu", "honghu", "quanhong"]
    methods = [None, "zimo", "wangdiao", "wangdiaowang", "wangchuang", "wangchuangwang",
               "wangzha", "wangzhawang"]  # fmt: skip

    def f(table, name):
        return 1.0 if name is None else table[BIT[name]]

    def comb(a, b, add):
        return max((a if a > 1 else 0) + (b if b > 1 else 0), 1) if add else a * b

    def mix(table, add, qc, qm):
        return sum(qc[c] * qm[m] * comb(f(table, colours[c]), f(table, methods[m]), add)
                   for c in range(5) for m in range(len(qm)))  # fmt: skip

    qm = row[P.M_QMETH : P.M_QMETH + 16].reshape(2, 8)
    add_run, add_fit = rules["fan_combine"] == "add", fit[P.N_FAN + 2] > 0.5
    red = []
    for r in range(P.N_RED):
        qc = row[P.M_QCOL + 5 * r : P.M_QCOL + 5 * r + 5]
        red.append(mix(run_f, add_run, qc, qm[0]) / mix(fit, add_fit, qc, qm[0]) - 1)
    per_run = rules["tun_per_xing"] * (2 if rules["shuangxing"] else 1)
    per_fit = fit[P.N_FAN] * (2 if fit[P.N_FAN + 1] > 0.5 else 1)
    same = ("gen", "fan", "shang", "xia").index(rules["xing"]) == int(fit[P.N_FAN + 4])
    col = 1 if same or rules["xing"] == "gen" else 2
    tun = row[P.M_TUN : P.M_TUN + 3 * P.N_HX].reshape(P.N_HX, 3)
    hx = [(t[0] + per_run * t[col]) / (t[0] + per_fit * t[1]) - 1 for t in tun]
    r_all = (active - 1) / fit[P.N_FAN + 3]
    return np.array(hx), np.array(red), r_all - 1


@pytest.mark.parametrize(
    "options",
    [{}, {"pay_zimo": 4}, {"pay_heihu": 8, "pay_honghu": 1}, {"tun_per_xing": 0},
     {"players": 4}, {"fan_combine": "add"}, {"xing": "fan", "shuangxing": True},
     {"players": 4, "zuoxing": True}],
)  # fmt: skip
def test_strong_prices_its_wins_under_the_run_rules(options):
    """derive_values against its definition; exactly the fitted values at the fit's rules
    (the committed model was fitted at the defaults)."""
    rules = V.resolve(options)
    _, rows = seat_bots(V, rules, ["strong"] * V.n_players(rules))
    row = rows[0].copy()
    active = rules["players"] - (1 if rules["zuoxing"] else 0)
    Z.derive_values(V.pack(rules), row, active)
    hx, red, r_all = _derive_py(row, rules, active)
    assert row[P.D_RHX : P.D_RHX + P.N_HX] == pytest.approx(hx, abs=1e-12)
    assert row[P.D_RRED : P.D_RRED + P.N_RED] == pytest.approx(red, abs=1e-12)
    assert row[P.D_RALL] == pytest.approx(r_all, abs=1e-12)
    if not options:
        assert not row[P.D_RHX : P.D_RLOSS + 2].any()
    if options == {"pay_zimo": 4}:
        assert (row[P.D_RRED : P.D_RRED + P.N_RED] > 0.3).all() and row[P.D_RLOSS + 1] > 0.3
    # a row without a fitted model (another policy's) is left at the fit's prices
    blank = np.zeros_like(row)
    Z.derive_values(V.pack(rules), blank, active)
    assert not blank.any()


@pytest.mark.parametrize(
    "hand1",
    ["d4 d6d6 x2x7x10 x8x9x10 d1d2 d9d9 x4", "d4 d6d6 x2x7x10 x8x9x10 d10d10 x4 x5 x1",
     "d4 d6d6 x2x7x10 x4x5x6 d9d9 d10 x1 x8"],
)  # fmt: skip
def test_strong_keeps_a_big_pair_worth_more_than_a_zero_huxi_chi(hand1):
    """The dealer's first discard 伍: 吃 with 肆陆 (a 句, 0 胡息) breaks the pair of 陆, a 碰
    of 3 胡息 or a 啸 of 6 to be, its two other 陆 unseen. The strong bot on main took the 吃
    in each of these hands; it now keeps the pair, and weighing the pair at 0 it takes
    the 吃 again."""
    kw = dict(rules={"kings": 0}, policies="efficiency,strong,efficiency")
    deal = play_deck({0: DEALER, 1: hand1}, **kw)
    assert "seat 1 passes the 吃 of d5" in deal.text
    deal = play_deck({0: DEALER, 1: hand1}, params={"strong": {"pair": 0.0}}, **kw)
    lines = deal.text.splitlines()
    at = next(i for i, line in enumerate(lines) if "seat 1 吃s d5" in line)
    assert "d4d5d6" in lines[at + 1]


@pytest.mark.parametrize("active", [2, 3, 4])
def test_the_self_draw_race_reads_the_seats_at_the_table(active):
    """The passed-win race (value and strong): the deal survives each round of the others
    with ``surv`` per two others, so at 4 seats a round is riskier than at 3, at 2 safer.
    The hand waits on 肆 and 柒 (4 and 3 unseen of 66), 20 cards in the stock."""
    packed = V.pack(RULES)
    work = Z.workspace(packed)
    (values, hand, ps, pk, tab, pile, stock, ctx, ws, wvx0, best2, opts, ng, kv, h2, used,
     scratch, out, delta, zmoney, states, kings_held, sq, wvx, gcounts, osums,
     sscr) = work  # fmt: skip
    counts, _ = cards.parse("x1x2x3 d2d7d10 x4x5x6 x7x8x9 d5d6")
    hand[0, :20] = counts
    ps[Z.PS_KEY] = -1
    pk[Z.PK_ALIKE] = -1
    ctx[Z.K_NCARDS], ctx[Z.K_PTR], ctx[Z.K_ACTIVE] = 80, 60, active
    p, vsum, good = Z._self_race(packed, values, wvx0, ws, best2, hand, ps, pk, tab, pile, ctx,
                                 0, 0.9, scratch, out, sq, wvx, gcounts)  # fmt: skip
    unseen = 80 - counts.sum()
    assert good == 4 + 3  # 肆 all four unseen, 柒 three
    w = good / unseen
    surv = 0.9 ** ((active - 1) / 2)
    want = sum(surv**i * (1 - w) ** (i - 1) * w for i in range(1, 20 // active + 1))
    assert p == pytest.approx(want, rel=1e-12)
    assert vsum > 0


def test_tuning_drops_the_passing_weights_where_every_win_is_forced():
    from engine.play.zipai.tuning import SPACES, relevant

    for policy in ("value", "strong"):
        every = [d.name for d in SPACES[policy]]
        assert [d.name for d in relevant(V, RULES, policy)] == every
        forced = [d.name for d in relevant(V, V.resolve({"must_win": "any"}), policy)]
        assert forced == [n for n in every if n not in ("pass_margin", "survive", "pass_risk")]
        assert len(forced) < len(every)


def _near_win(rng):
    """A hand of ``3 * need - 1`` cards (21,) with ``need`` 门子 to form: groups of the
    rules' templates, one card less, then a few cards swapped for random kinds, one of
    them for a 王 one time in four."""
    from engine.zipai.huxi import N_TEMPLATES, TEMPLATES

    while True:
        need = int(rng.integers(2, 6))
        h = np.zeros(21, np.int64)
        for _ in range(need):
            k = int(rng.integers(20))
            t = int(rng.integers(N_TEMPLATES[k]))
            for j in range(2, 5):
                h[TEMPLATES[k, t, j]] += 1
        h[rng.choice(np.flatnonzero(h[:20]))] -= 1
        for _ in range(int(rng.integers(0, 3))):
            h[rng.choice(np.flatnonzero(h[:20]))] -= 1
            h[rng.integers(20) if rng.random() < 0.75 or h[20] else 20] += 1
        if h[:20].max() <= 4:
            return h, need


def test_a_hand_whose_isolated_cards_the_arrival_cannot_take_does_not_win(rng):
    """The win check's filter (loop._arrival_takes), and the strong bot's win cache's
    with a 王 added (loop._wangs_take): a card of the hand in no 3-card group of its free
    cards joins the arriving card or a 王, which take so many of them at most. Checked
    against the engine's win search on hands near a win, each card arriving in turn."""
    from engine.variants.luodisao._kernels import can_win
    from engine.zipai.layout import HOW_FLIP, HOW_SELF

    packed = V.pack(RULES)
    work = Z.workspace(packed)
    values, ws, wvx0, best2 = work[0], work[8], work[9], work[10]
    wins = skipped = beyond_old = 0
    for _ in range(1000):
        h, need = _near_win(rng)
        w = int(h[20])
        iso = Z._isolated_bits(h)
        n = bin(iso).count("1")
        # the 王 case is the win cache's: the 王 held and the one added
        paired = Z._paired(iso)
        assert Z._arrival_takes(iso, paired, 20, w) == Z._wangs_take(paired, w + 1) <= 2 * w + 2
        for c in range(21):
            how = HOW_SELF if c == 20 or rng.random() < 0.5 else HOW_FLIP
            won = can_win(packed, values, wvx0, h, w, 5 - need, 0, c, how, 0, ws, best2)
            wins += won
            if n > Z._arrival_takes(iso, paired, c, w):
                assert not won, (cards.format(h[:20], w), c)
                skipped += 1
                beyond_old += n <= 2 + 2 * w  # the old filter searched it
    # (a 王 taking one isolated card, ignoring the pairs, or a card not taking its own
    # kind would each skip wins here)
    assert wins > 600 and skipped > 7000 and beyond_old > 4000, (wins, skipped, beyond_old)
