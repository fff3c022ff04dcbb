"""What to change to make a variant fairer: claims in units that do not move with the stakes.

A "fairer" claim is about the dealer edge *relative to the stakes*: an option that shrinks
every payment (a lower base, a smaller multiplier) lowers the edge in points without
changing who is favoured, so every claim here reads the dealer edge in SD units
(:data:`analysis.sensitivity.FAIR_METRIC`, the edge divided by the per-deal SD of a
seat's result under the same rules), with the points beside it.

- :func:`fairness_changes`: the option values of a sensitivity table whose change of the
  edge in SD units is resolved (adjusted p below ``alpha``), each with the way it moves
  fairness: ``fairer`` (toward 0, not past it), ``less fair`` (away from 0) or
  ``unclear`` (the defaults' own edge is not resolved from 0, or the change may carry it
  past 0);
- :func:`confirm_changes`: plays each of them again on a fresh seed (by default with the
  report's bots) against the defaults on the same walls, and keeps a change only where
  its difference, adjusted over the confirmations, is resolved with the same sign and
  moves fairness the same way;
- :func:`recommendations`: the sentences, naming only confirmed changes as
  recommendations (a change flagged by the bot guard, :mod:`analysis.guard`, is named a
  possible bot artifact instead).
"""

from __future__ import annotations

import math
from collections.abc import Mapping

import numpy as np
import pandas as pd

from analysis.sensitivity import FAIR_METRIC, SKILL_METRIC, _resolved
from analysis.stats import adjust_rows, format_pm

__all__ = [
    "CONFIRM_SEED",
    "fairness_changes",
    "confirm_changes",
    "recommendations",
    "direction",
    "changes_json",
]

CONFIRM_SEED = 1_000_003
"""Added to a report's seed for the confirmation runs: a seed no other run of the report
plays (every other run of a report plays the report's seed)."""

_CHANGE_COLS = [
    "option",
    "option_value",
    "paired",
    "e0",
    "e0_lo",
    "e0_hi",
    "diff",
    "diff_lo",
    "diff_hi",
    "p_adj",
    "new",
    "direction",
    "points",
    "points_lo",
    "points_hi",
    "resolved",
]


def direction(e0: float, e0_lo: float, e0_hi: float, lo: float, hi: float) -> str:
    """How a resolved change ``[lo, hi]`` (not covering 0) of an edge ``e0`` moves fairness.

    ``fairer``: the defaults' edge is resolved from 0 and the whole interval of the
    change moves it toward 0 without carrying it past ``-e0`` (so ``|e0 + d| < |e0|``
    for every ``d`` in it); ``less fair``: the edge is resolved from 0 and the change
    moves it away from 0 (or the whole interval carries it past ``-e0``); else
    ``unclear``.

    Examples
    --------
    >>> direction(0.05, 0.03, 0.07, -0.03, -0.01)
    'fairer'
    >>> direction(0.05, 0.03, 0.07, 0.01, 0.03)
    'less fair'
    >>> direction(0.01, -0.01, 0.03, -0.03, -0.01)
    'unclear'
    """
    if not all(math.isfinite(x) for x in (e0, e0_lo, e0_hi, lo, hi)):
        return "unclear"
    if not (e0_lo > 0 or e0_hi < 0):
        return "unclear"
    s = 1.0 if e0 > 0 else -1.0
    lo, hi = sorted((s * lo, s * hi))  # the change with the edge's sign taken as +
    a = abs(e0)
    if lo > 0 or hi < -2 * a:
        return "less fair"
    if hi < 0 and lo > -2 * a:
        return "fairer"
    return "unclear"


def fairness_changes(table, *, alpha: float = 0.05, near_largest: bool = False) -> pd.DataFrame:
    """The option values whose change of the dealer edge in SD units is resolved.

    Parameters
    ----------
    table : DataFrame or list of dict
        :func:`analysis.sensitivity.sensitivity_table` rows with ``p_adj`` (and the
        :data:`~analysis.sensitivity.FAIR_METRIC` rows).
    alpha : float
        Adjusted-p threshold of a resolved difference.
    near_largest : bool
        Also the values whose change is not resolved but lies within the interval of the
        largest change (a screen's "could matter": :func:`analysis.sensitivity.screen`),
        each with the way its estimate moves fairness (:func:`direction` on the point).

    Returns
    -------
    DataFrame
        ``option, option_value, paired, e0, e0_lo, e0_hi`` (the defaults' edge in SD
        units), ``diff, diff_lo, diff_hi, p_adj`` (its change, the interval as given:
        adjusted the way ``p_adj`` is where the table's intervals are), ``new`` (``e0 +
        diff``), ``direction`` (:func:`direction`), ``points, points_lo, points_hi``
        (the change of the edge in points per deal, NaN where the table lacks it) and
        ``resolved``; largest change of ``|edge|`` toward 0 first.
    """
    t = pd.DataFrame(table)
    if t.empty or "metric" not in t:
        return pd.DataFrame(columns=_CHANGE_COLS)
    live = t[~t["inert"].astype(bool)]
    sd = live[live["metric"] == FAIR_METRIC]
    pts = live[live["metric"] == "dealer_edge"].set_index(["option", "option_value"])
    near = (math.nan, math.nan)
    finite = sd[np.isfinite(sd["diff"].to_numpy(dtype=float))]
    if near_largest and len(finite):
        big = finite.loc[finite["diff"].astype(float).abs().idxmax()]
        near = (float(big["diff_lo"]), float(big["diff_hi"]))
    rows = []
    for r in sd.to_dict("records"):
        d, lo, hi = float(r["diff"]), float(r["diff_lo"]), float(r["diff_hi"])
        resolved = _resolved(r, alpha)
        if not resolved and not near[0] <= d <= near[1]:
            continue
        e0 = float(r["baseline_estimate"])
        lo0, hi0 = (float(r.get(k, math.nan)) for k in ("baseline_lo", "baseline_hi"))
        key = (r["option"], r["option_value"])
        p = pts.loc[key] if key in pts.index else None
        rows.append(
            {
                "option": r["option"],
                "option_value": r["option_value"],
                "paired": bool(r["paired"]),
                "e0": e0,
                "e0_lo": lo0,
                "e0_hi": hi0,
                "diff": d,
                "diff_lo": lo,
                "diff_hi": hi,
                "p_adj": float(r["p_adj"]),
                "new": e0 + d,
                "direction": direction(e0, lo0, hi0, *((lo, hi) if resolved else (d, d))),
                "points": math.nan if p is None else float(p["diff"]),
                "points_lo": math.nan if p is None else float(p["diff_lo"]),
                "points_hi": math.nan if p is None else float(p["diff_hi"]),
                "resolved": resolved,
            }
        )
    out = pd.DataFrame(rows, columns=_CHANGE_COLS)
    if out.empty:
        return out
    gain = out["e0"].abs() - out["new"].abs()
    return out.iloc[np.argsort(-gain.to_numpy(), kind="stable")].reset_index(drop=True)


def confirm_changes(
    variant,
    changes,
    deals: int,
    *,
    seed: int,
    policies="strong",
    workers: int | None = None,
    level: float = 0.95,
    alpha: float = 0.05,
    match_length: int = 16,
    run=None,
) -> dict:
    """Play each change again on ``seed`` and keep it where it holds.

    Parameters
    ----------
    variant : str
    changes : DataFrame or list of dict
        :func:`fairness_changes` rows (``option, option_value, diff, direction``).
    deals : int
        Deals of the defaults and of each change (the same walls: paired deal by deal
        unless the option changes the cards dealt).
    seed : int
        A seed none of the runs the changes were found on played (a report adds
        :data:`CONFIRM_SEED` to its own).
    policies
        The bots (default ``strong``: the report's).
    workers, level, alpha, match_length
    run : callable, optional
        ``run(rules) -> record frame`` instead of ``engine.simulate`` (tests).

    Returns
    -------
    dict
        ``{"table": DataFrame, "frames": {(option, value): records}, "base": records,
        "seed", "deals", "policies"}``. The table has per change its ``option,
        option_value``, the fresh difference of the edge in SD units ``diff, diff_lo,
        diff_hi`` (Holm-adjusted over the changes confirmed together, the interval at
        the level of its adjusted test), ``p, p_adj``, the fresh defaults' edge ``e0,
        e0_lo, e0_hi``, ``direction`` (:func:`direction` on the fresh runs), the change
        in points ``points, points_lo, points_hi`` and ``confirmed``: the fresh
        difference is resolved with the sign of the one found, and moves fairness the
        same way.
    """
    from analysis.sweep import sweep_table
    from engine import variants as registry

    v = registry.get(variant) if isinstance(variant, str) else variant
    ch = pd.DataFrame(changes)
    if run is None:
        from engine.runs.run import simulate

        def run(rules):
            return simulate(
                v.name, deals, seed=seed, rules=rules, policies=policies, workers=workers,
                match_length=match_length, progress=False,
            ).to_pandas()  # fmt: skip

    out = {"table": pd.DataFrame(), "frames": {}, "base": None, "seed": int(seed),
           "deals": int(deals), "policies": policies}  # fmt: skip
    if ch.empty:
        return out
    base = run(None)
    out["base"] = base
    rows = []
    for r in ch.to_dict("records"):
        opt = v.option_map[r["option"]]
        val = (
            opt.parse(r["option_value"])
            if isinstance(r["option_value"], str)
            else r["option_value"]
        )
        f = run({opt.key: val})
        out["frames"][(opt.key, r["option_value"])] = f
        t = sweep_table(
            {"defaults": base, "changed": f}, option=opt.key, baseline="defaults",
            metrics=[FAIR_METRIC, "dealer_edge"], level=level, paired=not opt.changes_deal,
            adjust="none",
        )  # fmt: skip
        b = t[t["is_baseline"]].set_index("metric")
        c = t[~t["is_baseline"]].set_index("metric")
        row = c.loc[FAIR_METRIC].to_dict()
        rows.append(
            {
                **row,
                "option": opt.key,
                "option_value": r["option_value"],
                "found_diff": float(r["diff"]),
                "found_direction": r["direction"],
                "e0": float(b.loc[FAIR_METRIC, "estimate"]),
                "e0_lo": float(b.loc[FAIR_METRIC, "lo"]),
                "e0_hi": float(b.loc[FAIR_METRIC, "hi"]),
                "points": float(c.loc["dealer_edge", "diff"]),
                "points_lo": float(c.loc["dealer_edge", "diff_lo"]),
                "points_hi": float(c.loc["dealer_edge", "diff_hi"]),
            }
        )
    rows = adjust_rows(rows, "holm", alpha=alpha)
    for r in rows:
        r["direction"] = direction(r["e0"], r["e0_lo"], r["e0_hi"], r["diff_lo"], r["diff_hi"])
        same_sign = r["found_diff"] * r["diff"] > 0
        r["confirmed"] = bool(r["reject"] and same_sign and r["direction"] == r["found_direction"])
    keep = ["option", "option_value", "diff", "diff_lo", "diff_hi", "diff_level", "p", "p_adj",
            "reject", "e0", "e0_lo", "e0_hi", "direction", "found_diff", "found_direction",
            "points", "points_lo", "points_hi", "n_pairs", "paired", "confirmed"]  # fmt: skip
    out["table"] = pd.DataFrame(rows)[keep]
    return out


def _pm(d: float, lo: float, hi: float, *, magnitude: bool = False) -> str:
    return format_pm(abs(d) if magnitude else d, (hi - lo) / 2)


def _change_text(r: Mapping, name: str, unit: str, fresh: Mapping | None) -> str:
    verb = "raises" if r["diff"] > 0 else "lowers"
    text = (
        f"{r['option']}={r['option_value']} {verb} {name}'s dealer edge by "
        f"{_pm(r['diff'], r['diff_lo'], r['diff_hi'], magnitude=True)} SD "
        f"(from {r['e0']:+.3f} to {r['new']:+.3f} SD"
    )
    if math.isfinite(r.get("points", math.nan)):
        text += f"; {_pm(r['points'], r['points_lo'], r['points_hi'])} {unit}-based points"
    text += ")"
    if fresh is not None:
        text += (
            f", again {_pm(fresh['diff'], fresh['diff_lo'], fresh['diff_hi'])} SD on a fresh seed"
        )
    return text


def recommendations(
    table,
    *,
    name: str,
    unit: str,
    alpha: float = 0.05,
    deals: int | None = None,
    family: str = "",
    policy: str = "value",
    confirmed=None,
    confirm_policy: str | None = None,
    guard: Mapping[tuple[str, str], str] | None = None,
    screen: str | None = None,
) -> list[str]:
    """What to change to make a variant fairer, in words: the dealer edge in SD units
    (points beside), only resolved changes, only confirmed ones recommended.

    Parameters
    ----------
    table : DataFrame or list of dict
        :func:`analysis.sensitivity.sensitivity_table` rows with ``p_adj``.
    name : str
        The variant's name in the sentences (丽水麻将...).
    unit : str
        Its value unit.
    alpha : float
    deals : int, optional
        Deals per value (for the sentences).
    family : str
        The multiplicity family in words (``"the 312 tests of this report"``).
    policy : str
        The bots that played ``table``.
    confirmed : DataFrame or list of dict, optional
        :func:`confirm_changes`'s table. Given, a change is recommended (or called less
        fair) only where it is confirmed; None: no change was played again, and the
        changes are named as found on one seed, not confirmed.
    confirm_policy : str, optional
        The bots of the confirmation runs.
    guard : mapping, optional
        ``(option, value) -> why`` of the settings the bot guard flags: named a possible
        bot artifact, never recommended.

    Returns
    -------
    list of str
    """
    t = pd.DataFrame(table)
    if t.empty:
        return [f"{name}: no rule option could be swept alone."]
    t["resolved"] = [_resolved(r, alpha) for r in t.to_dict("records")]
    inert = t[t["inert"].astype(bool)]
    live = t[~t["inert"].astype(bool)]
    sd = live[live["metric"] == FAIR_METRIC]
    pts = live[live["metric"] == "dealer_edge"]
    how = f" (Holm-adjusted p < {alpha:g} over {family})" if family else ""
    skill_how = how
    if screen is not None:
        how = f" (passed the screen at a false-discovery rate of {alpha:g})"
    on = f" on the {deals:,} deals of each comparison" if deals else ""
    out = []
    if len(sd):
        r0 = _most_deals(sd)  # a screen's rows compare with different deals: the most
        e0 = _pm(float(r0["baseline_estimate"]), float(r0.get("baseline_lo", math.nan)),
                 float(r0.get("baseline_hi", math.nan)))  # fmt: skip
        p0 = ""
        if len(pts):
            q = _most_deals(pts)
            p0 = (
                f" ({_pm(float(q['baseline_estimate']), float(q.get('baseline_lo', math.nan)), float(q.get('baseline_hi', math.nan)))} "  # noqa: E501
                f"{unit}-based points per deal)"
            )
        out.append(
            f"With {policy} bots{on}, the default rules give {name} a dealer edge of {e0} "
            f"SD units{p0}; a change is called fairer when it brings the edge in SD units "
            "(which does not move with the stakes) closer to 0."
        )
    else:
        out.append(f"No option value could be compared on {name}'s dealer edge.")
    if screen is not None:
        out.append(screen)
    changes = fairness_changes(t, alpha=alpha, near_largest=screen is not None)
    fresh = {}
    if confirmed is not None:
        for r in pd.DataFrame(confirmed).to_dict("records"):
            fresh[(r["option"], str(r["option_value"]))] = r
    guard = {(k[0], str(k[1])): w for k, w in (guard or {}).items()}
    groups: dict[str, list[str]] = {"fairer": [], "less fair": [], "unclear": []}
    unconfirmed, artifacts = [], []
    for r in changes.to_dict("records"):
        key = (r["option"], str(r["option_value"]))
        label = f"{key[0]}={key[1]}"
        if key in guard:
            artifacts.append(f"{label} ({guard[key]})")
            continue
        fr = fresh.get(key)
        ok = fr is not None and bool(fr["confirmed"])
        if not r["resolved"] and not ok:  # near the largest, but not shown to matter
            if fr is not None:
                unconfirmed.append(label)
            continue
        if r["direction"] != "unclear" and confirmed is not None and not ok:
            unconfirmed.append(label)
            continue
        groups[r["direction"]].append(_change_text(r, name, unit, fr))
    cp = f" with {confirm_policy} bots" if confirm_policy else ""
    conf = (
        f", and confirmed on a fresh seed{cp}" if confirmed is not None
        else "; found on one seed, not yet confirmed on a fresh one"
    )  # fmt: skip
    if groups["fairer"]:
        out.append(
            f"To make {name} fairer between the dealer and the others{how}{conf}: "
            + "; ".join(groups["fairer"]) + "."
        )  # fmt: skip
    else:
        out.append(f"No change of one option is shown to make {name} fairer at this N.")
    if groups["less fair"]:
        out.append(
            f"These move {name}'s dealer edge away from 0 (less fair){conf}: "
            + "; ".join(groups["less fair"]) + "."
        )  # fmt: skip
    if groups["unclear"]:
        out.append(
            f"Not called fairer or less fair, though {name}'s dealer edge in SD units moves "
            "by a resolved margin (the defaults' edge is not resolved from 0, or the change "
            "may carry it past 0): " + "; ".join(groups["unclear"]) + "."
        )
    if unconfirmed:
        found = "Passed the screen" if screen is not None else "Resolved on the report's seed"
        out.append(
            f"{found} but not confirmed on a fresh one (not recommended): {', '.join(unconfirmed)}."
        )
    if artifacts:
        out.append(
            "Possible bot artifacts (the bot check fails at these settings, so they are not "
            f"findings): {'; '.join(artifacts)}."
        )
    moved = set(zip(changes["option"], changes["option_value"].astype(str), strict=True))
    stakes = [
        f"{r['option']}={r['option_value']}"
        for r in pts[pts["resolved"]].to_dict("records")
        if (r["option"], str(r["option_value"])) not in moved
    ]
    if stakes:
        out.append(
            "These change the dealer edge in points but not resolved relative to the "
            "stakes (in SD units), so they are not called fairer or less fair: "
            f"{', '.join(stakes)}."
        )
    unres = sd[~sd["resolved"]]
    if len(unres):
        big = unres.loc[unres["diff"].astype(float).abs().idxmax()]
        other = "other " if len(changes) else ""
        n = f" at {deals:,} deals per value" if deals else ""
        out.append(
            f"The {other}{len(unres)} option values do not resolve an effect on the dealer "
            f"edge in SD units{n} (the largest, {big['option']}={big['option_value']}, is "
            f"{_pm(float(big['diff']), float(big['diff_lo']), float(big['diff_hi']))} SD, "
            "not resolved); a non-resolved effect may still be real but smaller than this N "
            "can see."
        )
    out.extend(_skill_words(live, name, unit, skill_how, policy))
    if len(inert):
        vals = sorted({f"{r['option']}={r['option_value']}" for r in inert.to_dict("records")})
        out.append(
            "These leave every deal's result unchanged under the other defaults and these "
            f"bots, so they cannot matter here: {', '.join(vals)}."
        )
    return out


def _most_deals(rows: pd.DataFrame) -> pd.Series:
    """The first of the rows compared on the most deals (``n``; else the first row)."""
    if "n" not in rows:
        return rows.iloc[0]
    n = pd.to_numeric(rows["n"], errors="coerce").fillna(-1).to_numpy()
    return rows.iloc[int(np.argmax(n))]


def _skill_words(live: pd.DataFrame, name: str, unit: str, how: str, policy: str) -> list[str]:
    sk = live[live["metric"] == SKILL_METRIC]
    if not len(sk):
        return []
    s0 = float(sk["baseline_estimate"].iloc[0])
    res = sk[sk["resolved"]]
    what = (
        f"what skill is worth in {name} (the value bot's edge over efficiency, {s0:+.3g} "
        f"{unit}-based points per deal under the defaults)"
    )
    if len(res):
        parts = []
        for r in res.sort_values("diff", key=lambda x: -x.abs()).to_dict("records"):
            verb = "raises" if r["diff"] > 0 else "lowers"
            parts.append(
                f"{r['option']}={r['option_value']} {verb} it by "
                f"{_pm(float(r['diff']), float(r['diff_lo']), float(r['diff_hi']), magnitude=True)} "  # noqa: E501
                f"(to {s0 + float(r['diff']):+.3g})"
            )
        return [f"{what[0].upper()}{what[1:]}{how}: " + "; ".join(parts) + "."]
    big = sk.loc[sk["diff"].astype(float).abs().idxmax()]
    return [
        f"No option value resolves an effect on {what}; the largest, "
        f"{big['option']}={big['option_value']}, is "
        f"{_pm(float(big['diff']), float(big['diff_lo']), float(big['diff_hi']))}, not resolved."
    ]


def changes_json(changes: pd.DataFrame, confirmed, guard: Mapping | None) -> list[dict]:
    """The changes as the report keeps them: each with its fresh-seed confirmation, the
    bot check's flag and whether the report prints it as a recommendation (``printed``).
    """
    from analysis._util import jsonable

    fresh = {}
    if confirmed is not None:
        for r in pd.DataFrame(confirmed).to_dict("records"):
            fresh[(r["option"], str(r["option_value"]))] = r
    guard = {(k[0], str(k[1])): w for k, w in (guard or {}).items()}
    out = []
    for r in jsonable(changes):
        key = (r["option"], str(r["option_value"]))
        fr = fresh.get(key)
        r["fresh"] = jsonable(pd.DataFrame([fr]))[0] if fr is not None else None
        r["confirmed"] = bool(fr is not None and fr["confirmed"])
        r["bot_artifact"] = guard.get(key)
        r["printed"] = bool(
            r["direction"] != "unclear" and r["confirmed"] and r["bot_artifact"] is None
        )
        out.append(r)
    return out
