"""Fitting the strong policy's models from the engine's own ground truth (``mjlab fit``).

The simulator knows every hidden hand, so the three models the strong policy needs
(engine.mahjong.strong) are fitted on simulated positions whose outcome is exact:

- **win tables**: the chance that a hand of ``3*sets+1`` tiles wins the deal, from
  its plain distance, ukeire and the live tiles left, and the chance that it wins with
  each target's pattern (清一色, 混一色, all triplets, seven pairs, 金雀 or, under 游金,
  the 游 shape) from that target's distance: a race model (:func:`_race`) fitted by
  maximum likelihood to the positions' true outcomes (or, where the variant says
  ``target_tables="observed"``, each target's chance as the positions' own rate by
  distance and live tiles, shrunk toward that race: 诸暨, whose 3-台 minimum makes 清一色
  the usual legal win; and under 游金 the wild target's, :func:`_observed_targets`);
- **values**: the mean points a win brings its winner, by target pattern and by
  whether the winner deals, and the mean points a feeder pays (from the records);
- **danger**: two logistic regressions (L2 penalty :data:`L2`) on the danger features
  of (opponent, tile): the opponent can win on the tile now; he holds three of it.

The positions are played by ``policies`` (``value`` by default; refit with ``strong``
once it exists, so the models describe the play they face). Everything is a pure
function of the variant, its rules, the policies, the deal count and the seed, so
:func:`fit` reproduces committed models exactly; :func:`write` stores them in the
package (``engine/variants/<variant>/strong.json``) with the command that made them.
"""

from __future__ import annotations

import numpy as np

from engine import abi
from engine._fitting import collect_with_bar, feature_logistic
from engine.jit.njit import kernel
from engine.mahjong import layout as L
from engine.mahjong import params as P
from engine.mahjong.strong import MAX_FI
from engine.play import drivers as _drivers
from engine.play.mahjong import observe as O

__all__ = ["collect", "fit_mahjong", "refit_mahjong", "value_blocks"]
TARGET_CAP = 1.0
"""The most a target's factor may be: its chance at a distance against a plain hand's at
the same distance."""
LEGAL_SHRINK = 20.0
"""Predicted wins of pseudo-data that shrink each ``strong.legal`` factor toward 1."""
UKE_SPREAD = 0.3
"""How much the ukeire moves a far hand's win chance around its distance's mean (±)."""
TARGETS = P.TARGETS
"""Target names in the order of engine.mahjong.params T_*."""
OBSERVED_SHRINK = 30.0
"""Positions of pseudo-data, at the race's chance, that shrink each cell of an observed
target table (``Variant.target_tables = "observed"``) toward the race."""
ROWS_PER_DEAL = 700
"""Observation rows reserved per deal at first (a block that overflows them is played
again with more room: engine.play.drivers.collect)."""


def _chunks(n_matches: int, parts: int) -> list[tuple[int, int]]:
    step = -(-n_matches // parts)
    return [(lo, min(n_matches, lo + step)) for lo in range(0, n_matches, step)]


def collect(
    variant,
    resolved: dict,
    deals: int,
    seed: int,
    policies: tuple[str, ...],
    match_length: int = 16,
    threads: int = 2,
    block_matches: int = 64,
    on_block=None,
    overrides=None,
):
    """Play ``deals`` deals (whole matches) with observation on
    (:func:`engine.play.drivers.collect`).

    Returns ``(hand rows, danger rows, records int32 (deals, N_COLS))``. ``on_block``
    is called with the deals of each finished block (progress); ``overrides`` are
    per-seat parameters over the committed ones.
    """
    from engine.play.mahjong.testing import DRIVER

    def split(rows):
        return rows[rows[:, 0] == O.O_HAND].copy(), rows[rows[:, 0] == O.O_DANGER].copy()

    return _drivers.collect(
        DRIVER, variant, resolved, deals, seed, policies, match_length=match_length,
        threads=threads, block_matches=block_matches, on_block=on_block,
        rows_per_deal=ROWS_PER_DEAL, obs_width=O.OBS_W, split=split, overrides=overrides,
    )  # fmt: skip


def _race(d, u, draws, unseen, ubar, h, m1, mf):
    """P(the hand completes before the deal ends), by a race model (numpy, vectorised).

    The hand is ``d`` tiles from complete (``d`` >= 1) with ``u`` improving tiles among
    ``unseen``; each of its turns the deal first ends otherwise with chance ``h`` (an
    opponent wins), then the hand improves with chance ``m x u / unseen`` (``m1`` once
    waiting: the draw and the others' discards can complete it; ``mf`` farther: draws
    and claims), the next levels with their mean ukeire ``ubar[level]``; it has
    ``draws`` turns left.
    """
    d = np.clip(np.asarray(d), 1, P.N_D - 1).astype(np.int64)
    won = np.zeros(d.size)
    _race_rows(
        d, np.asarray(u, np.float64), np.asarray(draws, np.float64),
        np.maximum(unseen, 1.0).astype(np.float64), np.asarray(ubar, np.float64),
        float(h), float(m1), float(mf), won,
    )  # fmt: skip
    return won


@kernel
def _race_rows(d, u, draws, unseen, ubar, h, m1, mf, won):
    """:func:`_race` row by row into ``won`` (the same arithmetic, step by step, as a
    vectorised pass over the rows: a row's turns past its ``draws`` change nothing).
    """
    stay = 1.0 - h
    state = np.zeros(P.N_D)
    qs = np.zeros(P.N_D)
    move = np.zeros(P.N_D)
    for i in range(d.size):
        for lv in range(P.N_D):
            state[lv] = 0.0
        state[d[i]] = 1.0
        for lv in range(1, P.N_D):
            m = m1 if lv == 1 else mf
            uu = u[i] if d[i] == lv else ubar[lv]
            qs[lv] = min(m * uu / unseen[i], 0.95)
        w = 0.0
        step = 0
        while step < draws[i]:
            for lv in range(P.N_D):
                state[lv] *= stay
            move[0] = 0.0
            for lv in range(1, P.N_D):
                move[lv] = qs[lv] * state[lv]
            for lv in range(P.N_D):
                state[lv] -= move[lv]
            for lv in range(P.N_D - 1):
                state[lv] += move[lv + 1]
            w += state[0]
            state[0] = 0.0
            step += 1
        won[i] = w


def _race_inputs(live, players):
    """``(draws left, unseen tiles)`` of a seat from the live tiles beyond the reserve."""
    live = np.maximum(live, 0).astype(np.float64)
    return np.ceil(live / players), live + 13.0 * (players - 1)


def _tai_need(hand: np.ndarray, tai: dict) -> np.ndarray:
    """The 台 each O_HAND row's hand still needs for the minimum (its plain reading; the
    strong kernel's engine.mahjong.strong.tai_need), from the variant's ``strong.*_tai``
    parameters under the fit's rules.
    """
    bits = hand[:, O.H_HONORS]
    held = np.zeros(len(hand), np.int64)
    for i, t in enumerate(tai["honor_tai"]):
        held += np.where((bits >> i) & 1, int(t), 0)
    wt, at = tai["wild_tai"]
    if at > 0:
        held += np.where(hand[:, O.H_W] >= at, int(wt), 0)
    return int(tai["min_tai"]) - held


def _legal(won, pred, need) -> np.ndarray:
    """``strong.legal``: per bucket of 台 still needed (0, 1, 2, 3+), the chance of the
    rows' wins against what the model predicts, as ``exp(a - b n)`` with ``b >= 0``: a
    weighted least-squares line through the buckets' log ratios (each shrunk toward 1 by
    :data:`LEGAL_SHRINK` predicted wins, weighed by its predicted wins). Every 台 a hand
    still needs makes its win less likely by the same factor, so a 台 secured (an honor
    碰) is always worth something, where raw buckets are confounded by how play got there.
    """
    b = np.clip(need, 0, P.N_LEGAL - 1)
    n = np.arange(P.N_LEGAL, dtype=np.float64)
    num = np.array([won[b == k].sum() + LEGAL_SHRINK for k in range(P.N_LEGAL)])
    den = np.array([pred[b == k].sum() + LEGAL_SHRINK for k in range(P.N_LEGAL)])
    y, w = np.log(num / den), den
    xm, ym = (w * n).sum() / w.sum(), (w * y).sum() / w.sum()
    slope = (w * (n - xm) * (y - ym)).sum() / (w * (n - xm) ** 2).sum()
    slope = min(slope, 0.0)
    return np.exp(ym + slope * (n - xm))


def _live_buckets(live: np.ndarray) -> np.ndarray:
    """The win tables' live bucket of each row (engine.mahjong.strong.live_bucket)."""
    return np.clip(np.maximum(live, 0) // 8, 0, P.N_T - 1).astype(np.int64)


def _observed_target(dt: np.ndarray, tb: np.ndarray, won_t: np.ndarray,
                     race: np.ndarray) -> np.ndarray:  # fmt: skip
    """A target's table ``[N_D, N_T]`` from positions: the rate of wins with its pattern
    among the rows at each (distance, live bucket), shrunk toward ``race`` (the race's
    table) by :data:`OBSERVED_SHRINK` positions, then made monotone (a closer hand, or
    one with more live tiles, never wins less). Rows farther than the last bucket count
    in it, as the kernel reads them.
    """
    on = (dt >= 1) & (dt < 99)
    d = np.clip(dt[on], 1, P.N_D - 1)
    n = np.zeros((P.N_D, P.N_T))
    w = np.zeros((P.N_D, P.N_T))
    np.add.at(n, (d, tb[on]), 1.0)
    np.add.at(w, (d, tb[on]), won_t[on])
    tab = (w + OBSERVED_SHRINK * race) / (n + OBSERVED_SHRINK)
    for di in range(P.N_D - 2, 0, -1):
        tab[di] = np.maximum(tab[di], tab[di + 1])
    tab = np.maximum.accumulate(tab, axis=1)
    tab[0] = tab[1]
    return tab


def _win_tables(hand: np.ndarray, target_bits: np.ndarray, players: int, tai=None,
                observed: bool = False, observed_targets: frozenset = frozenset()):  # fmt: skip
    """``(p_plain [N_D, N_UK, N_T], p_target [N_TARGET, N_D, N_T], fit)`` from O_HAND rows.

    The tables come from :func:`_race`, whose parameters (the hazard ``h``, the
    multipliers ``m1`` and ``mf`` and a calibration ``kappa``) maximise the likelihood
    of the positions' true outcomes; a target's chance is the race of its own distance
    times a factor fitted the same way (its share of the wins the race predicts). A
    structural model keeps every table ordered (closer and wider hands win more),
    where raw counts of positions are confounded by how play got there.

    Where the variant has a minimum (``tai``: its ``strong.*_tai`` parameters, with
    ``min_tai`` > 0), ``fit["legal"]`` is ``strong.legal``: how the chance of a win with
    no target's pattern, for a hand that still needs 0, 1, 2, 3+ 台, compares with the
    rest of the race's chance once the targets' are taken out (:func:`_legal`).

    ``observed`` (``Variant.target_tables == "observed"``): each target's table is the
    positions' own rate (:func:`_observed_target`) instead of the race times a factor;
    ``observed_targets``: those targets' tables only.
    """
    from scipy import optimize

    won = hand[:, O.H_WON].astype(np.float64)
    bits = (hand[:, O.H_BITS_LO] & 0x7FFFFFFF) | ((hand[:, O.H_BITS_HI] & 0x7FFFFFFF) << 31)
    d = hand[:, O.H_D + P.T_PLAIN]
    u = hand[:, O.H_UKE].astype(np.float64)
    draws, unseen = _race_inputs(hand[:, O.H_LIVE], players)
    ubar = np.ones(P.N_D)
    for lv in range(1, P.N_D):
        sel = np.clip(d, 1, P.N_D - 1) == lv
        ubar[lv] = max(u[sel].mean(), 1.0) if sel.any() else ubar[lv - 1]
    keep = d >= 1

    def nll(x):
        h, m1, mf, kappa = x
        # the optimiser's finite differences probe the box's edges (h = 0), where the race
        # can multiply 0 by inf: numpy's warning there is not an error of the fit
        with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
            race = _race(d[keep], u[keep], draws[keep], unseen[keep], ubar, h, m1, mf)
            p = np.clip(kappa * race, 1e-6, 1 - 1e-6)
            y = won[keep]
            return -(y * np.log(p) + (1 - y) * np.log1p(-p)).sum()

    res = optimize.minimize(
        nll, [0.05, 2.0, 1.5, 0.9], method="L-BFGS-B",
        bounds=[(0.0, 0.5), (0.2, 8.0), (0.2, 8.0), (0.05, 1.0)],
    )  # fmt: skip
    h, m1, mf, kappa = (float(v) for v in res.x)
    # the tables, live at each bucket's middle. Waiting (d = 1) the race is exact
    # enough: the chance to draw or be fed one of u tiles in time. Farther, how the
    # hand improves after its next tile decides more than its ukeire now (far
    # improving tiles overlap), and raw positions confuse the two, so the ukeire only
    # orders hands of one distance: the race at the distance's mean ukeire, times a
    # factor that rises with u / ubar from 1 - UKE_SPREAD to 1 + UKE_SPREAD; a hand a
    # tile farther never scores above a closer one with a tile to wait on (measured:
    # trading distance for ukeire as the race model prices it won 15% fewer solitaire
    # hands in 18 draws than the efficiency order).
    mids_live = (np.arange(P.N_T) + 0.5) * 8
    t_draws, t_unseen = _race_inputs(mids_live, players)
    p_plain = np.zeros((P.N_D, P.N_UK, P.N_T))
    uk = np.arange(P.N_UK, dtype=np.float64)
    for di in range(1, P.N_D):
        if di == 1:
            for ui in range(P.N_UK):
                p_plain[1, ui] = kappa * _race(
                    np.ones(P.N_T, np.int64), np.full(P.N_T, uk[ui]), t_draws, t_unseen, ubar,
                    h, m1, mf,
                )  # fmt: skip
            continue
        mean = kappa * _race(np.full(P.N_T, di), np.full(P.N_T, ubar[di]), t_draws, t_unseen,
                             ubar, h, m1, mf)  # fmt: skip
        with np.errstate(divide="ignore"):
            g = 1.0 + UKE_SPREAD * np.tanh(np.log(uk / ubar[di]))
        p_plain[di] = g[:, None] * mean[None, :]
        # rescaled, not clipped, so the ukeire still orders the hands of this distance
        cap = p_plain[di - 1, 1:].min(axis=0) * (1 - 1e-6)
        top = p_plain[di].max(axis=0)
        p_plain[di] *= np.minimum(1.0, cap / np.maximum(top, 1e-300))[None, :]
    p_plain[0] = p_plain[1]
    base = np.stack([p_plain[di, min(int(ubar[di]), P.N_UK - 1)] for di in range(P.N_D)])
    p_target = np.zeros((P.N_TARGET, P.N_D, P.N_T))
    p_target[P.T_PLAIN] = base
    factors = [1.0]
    tb = _live_buckets(hand[:, O.H_LIVE])
    for t in range(1, P.N_TARGET):
        dt = hand[:, O.H_D + t]
        sel = (dt < 99) & (dt >= 1) & (dt <= d + 2)
        c = 0.0
        if target_bits[t] and sel.any():
            pred = kappa * _race(dt[sel], ubar[np.clip(dt[sel], 1, P.N_D - 1)], draws[sel],
                                 unseen[sel], ubar, h, m1, mf)  # fmt: skip
            lab = won[sel] * ((bits[sel] & target_bits[t]) != 0)
            c = float(min(TARGET_CAP, lab.sum() / max(pred.sum(), 1e-9)))
        factors.append(c)
        p_target[t] = c * base
        if (observed or t in observed_targets) and target_bits[t]:
            won_t = won * ((bits & target_bits[t]) != 0)
            p_target[t] = _observed_target(hand[:, O.H_D + t], tb, won_t, p_target[t])
    ubar[0] = ubar[1]
    fitted = {"h": h, "m1": m1, "mf": mf, "kappa": kappa, "ubar_table": ubar.round(2).tolist(),
              "target_factors": [round(f, 4) for f in factors],
              "target_tables": "observed" if observed else "race",
              **({"observed_targets": sorted(int(t) for t in observed_targets)}
                 if observed_targets and not observed else {})}  # fmt: skip
    if tai is not None and tai["min_tai"] > 0:
        # the plain-only rest: the race's chance less the targets' (each at its own
        # distance), against the wins with no target's pattern
        rest = kappa * _race(d[keep], u[keep], draws[keep], unseen[keep], ubar, h, m1, mf)
        tbk = tb[keep]
        for t in range(1, P.N_TARGET):
            dt = hand[keep, O.H_D + t]
            on = (dt < 99) & (dt >= 1)
            if (observed or t in observed_targets) and target_bits[t]:
                rest[on] -= p_target[t, np.clip(dt[on], 1, P.N_D - 1), tbk[on]]
            elif factors[t] > 0 and on.any():
                rest[on] -= factors[t] * kappa * _race(
                    dt[on], ubar[np.clip(dt[on], 1, P.N_D - 1)], draws[keep][on],
                    unseen[keep][on], ubar, h, m1, mf,
                )  # fmt: skip
        plain_won = won[keep] * ((bits[keep] & np.bitwise_or.reduce(target_bits)) == 0)
        legal = _legal(plain_won, np.maximum(rest, 0.0), _tai_need(hand[keep], tai))
        fitted["legal"] = legal.round(4).tolist()
    return p_plain, p_target, fitted


def _values(rec: np.ndarray, target_bits: np.ndarray, players: int):
    """``(value [N_TARGET, 2], loss [2, 2], stake [2], noise)`` in points from the records.

    value : the mean points a win brings its winner, by target and winner-deals; loss :
    what feeding a win costs a seat beyond what it pays as a bystander of such a win,
    by its and the winner's dealer status (shrunk toward the mean where few); stake : the
    mean loss of a seat in the deals it does not win, by whether it deals; noise : the
    number of plain wins and the SD of their points, by winner-deals (``n``, ``sd``).
    """
    winner = rec[:, abi.C_WINNER]
    won = winner >= 0
    delta = rec[:, abi.C_DELTA : abi.C_DELTA + players].astype(np.float64)
    bits = (rec[:, abi.C_PAT_LO].astype(np.int64) & 0x7FFFFFFF) | (
        (rec[:, abi.C_PAT_HI].astype(np.int64) & 0x7FFFFFFF) << 31
    )
    gain = np.where(won, delta[np.arange(len(rec)), np.maximum(winner, 0)], 0.0)
    wdeal = (winner == rec[:, abi.C_DEALER]).astype(np.int64)
    special = np.zeros(len(rec), bool)
    for t in range(1, P.N_TARGET):
        special |= (bits & target_bits[t]) != 0
    value = np.zeros((P.N_TARGET, 2))
    noise = {"n": [0, 0], "sd": [0.0, 0.0]}
    all_mean = gain[won].mean() if won.any() else 0.0
    for dl in (0, 1):
        sel = won & (wdeal == dl)
        plain = sel & ~special
        noise["n"][dl] = int(plain.sum())
        noise["sd"][dl] = round(float(gain[plain].std(ddof=1)), 4) if plain.sum() > 1 else 0.0
        if plain.sum() >= 5:
            vp = gain[plain].mean()
        else:
            vp = gain[sel].mean() if sel.any() else all_mean
        value[P.T_PLAIN, dl] = vp
        for t in range(1, P.N_TARGET):
            st = sel & ((bits & target_bits[t]) != 0)
            # few wins of a target: shrink its mean toward the plain value
            n = st.sum()
            value[t, dl] = (gain[st].sum() + 5 * vp) / (n + 5) if target_bits[t] else vp
    loss = np.zeros((2, 2))
    disc = rec[:, abi.C_DISCARDER]
    fed = won & (disc >= 0)
    dealer = rec[:, abi.C_DEALER]
    # what feeding costs a seat beyond what the same seat pays as a bystander of such a
    # win (丽水: all three pay, the feeder one point more and the dealer double; 诸暨, 福州:
    # the feeder pays alone), by the seat's and the winner's dealer status
    fed_pay = [[[], []], [[], []]]
    by_pay = [[[], []], [[], []]]
    for s in range(players):
        sd = (dealer == s).astype(np.int64)
        for a in (0, 1):
            for b in (0, 1):
                base_sel = fed & (sd == a) & (wdeal == b)
                fed_pay[a][b].append(-delta[base_sel & (disc == s), s])
                by_pay[a][b].append(-delta[base_sel & (disc != s) & (winner != s), s])
    all_fed = np.concatenate([np.concatenate(x) for row in fed_pay for x in row])
    all_by = np.concatenate([np.concatenate(x) for row in by_pay for x in row])
    base = (all_fed.mean() if all_fed.size else 0.0) - (all_by.mean() if all_by.size else 0.0)
    for a in (0, 1):
        for b in (0, 1):
            fp, bp = np.concatenate(fed_pay[a][b]), np.concatenate(by_pay[a][b])
            # few cases: shrink toward the overall mean
            f = (fp.sum() + 5 * (base + (bp.mean() if bp.size else 0.0))) / (fp.size + 5)
            loss[a, b] = f - (bp.mean() if bp.size else 0.0)
    stake = np.zeros(2)
    for dl in (0, 1):
        lost = []
        for s in range(players):
            sel = (winner != s) & ((rec[:, abi.C_DEALER] == s) == bool(dl))
            lost.append(delta[sel, s])
        lost = np.concatenate(lost)
        stake[dl] = -lost.mean() if lost.size else 0.0
    return value, loss, stake, noise


def _logistic(danger: np.ndarray, label: np.ndarray) -> np.ndarray:
    """L2-penalised logistic regression on the danger rows' active features (weights)."""
    return feature_logistic(danger, label, O.D_NF, O.D_F, MAX_FI, P.N_FEATURES)


def _tai_params(v, resolved) -> dict | None:
    """The variant's ``strong.*_tai`` parameters under ``resolved`` (its strong defaults),
    or None where it declares no minimum.
    """
    params = v.bot_params("strong", resolved) if v.bot_params else {}
    if float(params.get("min_tai", 0)) <= 0:
        return None
    return {k: params[k] for k in ("min_tai", "honor_tai", "wild_tai")}


def _target_bits(v) -> np.ndarray:
    """The pattern bits of each strong target in ``v``'s records (``Variant.bot_targets``)."""
    names = [p.name for p in v.patterns]
    target_bits = np.zeros(P.N_TARGET, np.int64)
    for t, key in enumerate(TARGETS):
        for pat in (v.bot_targets or {}).get(key, ()):
            target_bits[t] |= np.int64(1) << names.index(pat)
    return target_bits


def _value_blocks(v, resolved, rec: np.ndarray) -> tuple[dict, dict]:
    """The ``value``, ``loss`` and ``stake`` blocks of the strong model (as stored) from
    records played under ``resolved``, and the plain wins' noise (:func:`_values`).
    """
    value, loss, stake, noise = _values(rec, _target_bits(v), v.n_players(resolved))
    blocks = {
        "value": value.reshape(-1).round(4).tolist(),
        "loss": loss.reshape(-1).round(4).tolist(),
        "stake": stake.round(4).tolist(),
    }
    return blocks, noise


def value_blocks(v, resolved, rec: np.ndarray) -> dict:
    """What a win of each target brings, what feeding one costs and the stake a seat
    loses when another wins (the strong model's ``value``, ``loss`` and ``stake``), in
    points under ``resolved``, from records played under those rules: the strong policy's
    reading of the run's payouts (:mod:`engine.runs.adapt`).
    """
    return _value_blocks(v, resolved, rec)[0]


def _observed_targets(v, resolved) -> frozenset:
    """The targets whose tables are read from the positions whatever the variant's
    ``target_tables``: under 游金 the wild target (one wild left free, which then wins on
    any draw: no plain race at its distance says how often that is).
    """
    if v.pack(resolved)[L.R_YOUJIN] == 1:
        return frozenset({P.T_WILDPAIR})
    return frozenset()


def _play_blocks(v, resolved, hand, rec, players) -> tuple[dict, dict, dict]:
    """The model blocks fitted from the hand positions and records of one play (the win
    tables, the legality factors and the win values, :data:`SELF_PLAY_BLOCKS`), the
    race's summary and the plain wins' noise.
    """
    p_plain, p_target, race = _win_tables(
        hand, _target_bits(v), players, _tai_params(v, resolved),
        observed=v.target_tables == "observed", observed_targets=_observed_targets(v, resolved),
    )  # fmt: skip
    values, noise = _value_blocks(v, resolved, rec)
    blocks = {
        "p_plain": p_plain.reshape(-1).round(6).tolist(),
        "ubar": race["ubar_table"],
        "p_target": p_target.reshape(-1).round(6).tolist(),
        **values,
        **({"legal": race["legal"]} if "legal" in race else {}),
    }
    return blocks, race, noise


def fit_mahjong(v, resolved, deals, seed, policy, threads=2, progress=False,
                danger=None) -> dict:  # fmt: skip
    """Fit the strong models of the mahjong variant ``v`` (see :func:`engine.runs.fit.fit`).

    Returns the model as a mapping of parameter name to a list of floats (the
    ``strong.*`` model blocks of engine.mahjong.params) plus ``"identity"`` and
    ``"summary"`` (positions seen, base rates). ``danger``, a model's ``danger`` and
    ``kong_danger`` blocks, is kept instead of fitting them again (a refit under other
    rules keeps the committed reading of an opponent's visible play:
    :func:`refit_mahjong`).
    """
    players = v.n_players(resolved)
    policies = (policy,) * players
    keep = danger
    hand, danger, rec = collect_with_bar(collect, v, resolved, deals, seed, policies, threads,
                                         progress)  # fmt: skip
    tables, race, noise = _play_blocks(v, resolved, hand, rec, players)
    if keep is None:
        w_win = _logistic(danger, danger[:, O.D_WIN]).round(5)
        w_kong = _logistic(danger, danger[:, O.D_KONG]).round(5)
    else:
        w_win, w_kong = (np.asarray(keep[k], np.float64) for k in ("danger", "kong_danger"))
    model = {
        **tables,
        "danger": w_win.tolist(),
        "kong_danger": w_kong.tolist(),
    }
    identity = _drivers.fit_identity(v, resolved, policy, rec, deals, seed)
    summary = {
        "hand_positions": int(hand.shape[0]),
        "danger_positions": int(danger.shape[0]),
        "win_rate": float((rec[:, abi.C_WINNER] >= 0).mean()),
        "danger_rate": float(danger[:, O.D_WIN].mean()) if danger.size else 0.0,
        "kong_rate": float(danger[:, O.D_KONG].mean()) if danger.size else 0.0,
        "plain_wins": noise["n"],
        "plain_value_sd": noise["sd"],
        "race": race,
    }
    return {"model": model, "identity": identity, "summary": summary}


WILD_SLOTS = (L.R_WILD_MODE, L.R_WILD_KINDS, L.R_WILD_FIXED0, L.R_WILD_FIXED1)
"""The packed rules that say which tiles are wild: where they differ from the committed
fit's, a refit fits the danger models again (:func:`refit_mahjong`)."""


def same_wilds(v, a, b) -> bool:
    """Whether resolved rules ``a`` and ``b`` of ``v`` make the same tiles wild."""
    pa, pb = v.pack(a), v.pack(b)
    return all(int(pa[i]) == int(pb[i]) for i in WILD_SLOTS)


def refit_mahjong(v, resolved, deals, seed, policy, threads, progress, base: dict,
                  base_rules=None) -> dict:  # fmt: skip
    """:func:`fit_mahjong` under ``resolved`` rules: the chances to win, the legality and
    the win values move with the rules. The danger models (the reading of an opponent's
    visible play) are the ``base`` model's where the same tiles are wild as under
    ``base_rules`` (the committed fit's), and fitted again where they are not: wilds
    bring every opponent nearer to a win and change which discards are safe (the kept
    models lost to the value bot at every other wild count of each variant). There, if
    some tiles are still wild, a variant with ``refit_self_play`` fits its win tables
    and values a second time on the strong bot's own play (:func:`_self_play`).
    """
    wilds_moved = base_rules is not None and not same_wilds(v, resolved, base_rules)
    fitted = fit_mahjong(v, resolved, deals, seed, policy, threads, progress,
                         danger=None if wilds_moved else base)  # fmt: skip
    if wilds_moved and v.refit_self_play and policy != "strong" and has_wilds(v, resolved):
        fitted = _self_play(v, resolved, deals, seed, threads, progress, fitted)
    return fitted


def has_wilds(v, resolved) -> bool:
    """Whether resolved rules ``resolved`` of ``v`` make any tile wild."""
    return int(v.pack(resolved)[L.R_WILD_MODE]) != 0


SELF_PLAY_BLOCKS = ("p_plain", "ubar", "p_target", "legal", "value", "loss", "stake")
"""The model blocks a self-play pass fits again (:func:`_self_play`): the win tables and
the win values; the danger models stay those of the first pass."""


def _self_play(v, resolved, deals, seed, threads, progress, first: dict) -> dict:
    """A second pass of a refit (``Variant.refit_self_play``): the strong bot plays at
    every seat with the first pass's model (fitted on ``value``'s play) and its tuned
    weights, and the win tables and values are fitted again on those positions and
    records, so they describe the hands strong itself builds under these rules; the
    danger models stay the first pass's. The same deals and seed.
    """
    import functools

    players = v.n_players(resolved)
    model = first["model"]
    seats = {s: dict(model) for s in range(players)}
    play = functools.partial(collect, overrides=seats)
    hand, _, rec = collect_with_bar(play, v, resolved, deals, seed, ("strong",) * players,
                                    threads, progress, "second pass, strong's play")  # fmt: skip
    again, race, noise = _play_blocks(v, resolved, hand, rec, players)
    summary = dict(first["summary"])
    summary["self_play"] = {
        "policy": "strong",
        "blocks": [k for k in SELF_PLAY_BLOCKS if k in again],
        "hand_positions": int(hand.shape[0]),
        "win_rate": float((rec[:, abi.C_WINNER] >= 0).mean()),
        "plain_wins": noise["n"],
        "plain_value_sd": noise["sd"],
        "race": race,
    }
    return {"model": {**model, **again}, "identity": first["identity"], "summary": summary}
