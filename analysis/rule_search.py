"""Rule search: which settings of a variant meet a fairness target (``mjlab design``).

:func:`design` plays the settings of a small rule space, given as option values to vary,
on common random numbers (one seed for all), and measures each setting's headline
metrics with intervals: the dealer edge, the money flow, the draw rate, the value per
win, and on request the skill edge (value over efficiency, duplicate seating by dealer;
it needs its own runs). Settings that differ only in payout options are *re-scored*
from one simulation of their play options (:mod:`engine.runs.rescore`), so only the distinct
play settings are simulated; that is exact for value-blind policies and first-order for
value-aware ones (``simulate_all=True`` plays every setting instead).

Each constraint (``"dealer_edge<=0.02"``, ``"|dealer_edge|<=0.02"``, ``"flow>=5"``) gets
a verdict from the interval, never from the point estimate alone: ``meets`` when the
whole interval satisfies it, ``fails`` when none of it does, ``undecided`` otherwise. A
setting *passes* when it meets the target and every ``keep`` constraint. The Pareto set
is taken over |dealer edge| (smaller is fairer), flow (more money moving) and, when
measured, the skill edge (more reward for skill).

A space larger than ``max_settings`` is sampled by a Latin hypercube over the options'
value indices (``scipy.stats.qmc``, seeded), so every value of every option is played
about equally often.
"""

from __future__ import annotations

import itertools
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from engine.errors import UsageError

__all__ = ["design", "parse_constraint", "DESIGN_METRICS", "pareto_mask", "design_plot"]

DESIGN_METRICS = (
    "dealer_edge_sd",
    "dealer_edge_share",
    "dealer_edge",
    "flow",
    "draw_rate",
    "value_per_win",
    "skill_edge",
)
"""Metrics a target or keep constraint may name (``skill_edge`` costs its own runs). The
dealer edge in SD units (``dealer_edge_sd``) or as a share of the flow
(``dealer_edge_share``) does not move with the stakes; in points (``dealer_edge``) it
shrinks with every payment, so a setting that only pays less looks fairer there."""

_CONSTRAINT = re.compile(
    r"^\s*(?P<abs>\|)?\s*(?P<metric>[a-z_]+)\s*(?P=abs)?\s*(?P<op><=|>=|<|>)\s*"
    r"(?P<value>[-+]?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?)\s*$"
)


def parse_constraint(text: str) -> dict[str, Any]:
    """``"dealer_edge<=0.02"`` or ``"|dealer_edge|<=0.02"`` -> ``{metric, abs, op, value}``."""
    m = _CONSTRAINT.match(text or "")
    if not m:
        raise UsageError(
            f"constraint {text!r}: write METRIC<=X, METRIC>=X (or < >), or |METRIC|<=X; "
            f"metrics: {', '.join(DESIGN_METRICS)}"
        )
    metric = m.group("metric")
    if metric not in DESIGN_METRICS:
        raise UsageError(
            f"constraint {text!r}: unknown metric {metric!r}; metrics: {', '.join(DESIGN_METRICS)}"
        )
    return {
        "text": text.strip(),
        "metric": metric,
        "abs": bool(m.group("abs")),
        "op": m.group("op"),
        "value": float(m.group("value")),
    }


def _verdict(c: Mapping, est: float, lo: float, hi: float) -> str:
    """Meets / fails / undecided from the interval [lo, hi] of the metric."""
    if not all(math.isfinite(x) for x in (est, lo, hi)):
        return "undecided"
    if c["abs"]:
        lo, hi = (0.0 if lo <= 0 <= hi else min(abs(lo), abs(hi))), max(abs(lo), abs(hi))
    x = c["value"]
    if c["op"] in ("<=", "<"):
        ok = hi <= x if c["op"] == "<=" else hi < x
        bad = lo > x if c["op"] == "<=" else lo >= x
    else:
        ok = lo >= x if c["op"] == ">=" else lo > x
        bad = hi < x if c["op"] == ">=" else hi <= x
    return "meets" if ok else "fails" if bad else "undecided"


def pareto_mask(points: np.ndarray) -> np.ndarray:
    """Rows of ``points`` (to be maximised in every column) that no other row dominates."""
    n = len(points)
    keep = np.ones(n, bool)
    for i in range(n):
        if not np.all(np.isfinite(points[i])):
            keep[i] = False
            continue
        ge = np.all(points >= points[i], axis=1)
        gt = np.any(points > points[i], axis=1)
        if np.any(ge & gt):
            keep[i] = False
    return keep


def _settings(v, vary: Mapping[str, Sequence], max_settings: int, seed: int) -> list[dict]:
    options = v.option_map
    parsed: dict[str, list] = {}
    for key, values in vary.items():
        if key not in options:
            raise UsageError(
                f"unknown rule option {key!r} for {v.name}; options: {', '.join(sorted(options))}"
            )
        vals = []
        for raw in values:
            val = options[key].parse(raw)
            if val not in vals:
                vals.append(val)
        if not vals:
            raise UsageError(f"--vary {key}: give at least one value")
        parsed[key] = vals
    if not parsed:
        raise UsageError(f"design {v.name}: give at least one --vary KEY=V1,V2,...")
    keys = list(parsed)
    sizes = [len(parsed[k]) for k in keys]
    total = math.prod(sizes)
    if total <= max_settings:
        combos = list(itertools.product(*(parsed[k] for k in keys)))
    else:
        from scipy.stats import qmc

        sample = qmc.LatinHypercube(d=len(keys), seed=seed).random(max_settings)
        idx = np.minimum((sample * np.array(sizes)).astype(int), np.array(sizes) - 1)
        seen, combos = set(), []
        for row in idx:
            t = tuple(parsed[k][i] for k, i in zip(keys, row, strict=True))
            if t not in seen:
                seen.add(t)
                combos.append(t)
    return [dict(zip(keys, c, strict=True)) for c in combos]


def _label(setting: Mapping) -> str:
    return ",".join(
        f"{k}={str(v).lower() if isinstance(v, bool) else v}" for k, v in setting.items()
    )


def design(
    variant: str,
    vary: Mapping[str, Sequence],
    *,
    target: str,
    keep: Sequence[str] = (),
    deals: int = 100_000,
    seed: int = 0,
    rules: Mapping | None = None,
    policies="value",
    simulate_all: bool = False,
    max_settings: int = 64,
    skill_deals: int = 4_000,
    workers: int | None = None,
    progress: bool = True,
    level: float = 0.95,
    bot_check: bool = True,
) -> pd.DataFrame:
    """Search rule settings of ``variant`` for a target; one row per setting.

    Parameters
    ----------
    variant : str
    vary : mapping
        ``option -> values`` to combine (the grid, or a Latin-hypercube sample of it).
    target : str
        The constraint to meet (:func:`parse_constraint`), e.g. ``"dealer_edge<=0.02"``.
    keep : sequence of str
        Further constraints every passing setting must also meet (``"flow>=5"``).
    deals, seed : int
        Deals per simulated setting, and the one seed (common random numbers).
    rules : mapping, optional
        Options held fixed.
    policies : str or sequence
        The players' policies for the main runs.
    simulate_all : bool
        Simulate every setting, even those a re-score could answer.
    max_settings : int
        Most settings played; a larger space is sampled.
    skill_deals : int
        Deals per seating for ``skill_edge`` (only when a constraint names it).
    bot_check : bool
        Where every seat plays ``strong``: check with the bot guard
        (:mod:`analysis.guard`, strong against value at ``deals`` deals, the run's own N)
        each setting the answer would name, the passing ones and the Pareto set. A
        setting the guard flags is a possible bot artifact: it neither passes nor joins
        the Pareto set (which is taken again without it). The other settings are not
        checked: the guard plays a value run and a strong-against-value rung per setting
        (and a strong run where the setting was re-scored), several times a design's own
        cost if every setting of the space had it.

    Returns
    -------
    DataFrame
        One row per setting: the varied options, ``method`` (``simulated`` /
        ``rescored`` / ``rescored (first-order)``), for each metric its estimate and
        interval (``<m>``, ``<m>_lo``, ``<m>_hi``), one verdict column per constraint,
        ``passes`` (bool), ``pareto`` (bool) and ``bot_check`` (``ok``, ``possible bot
        artifact: <why>``, or ``not checked``). ``attrs["design"]`` holds the inputs.
    """
    from tqdm.auto import tqdm

    from engine.runs import rescore as rs
    from engine.variants import get as get_variant

    if deals < 1:
        raise UsageError("--deals must be >= 1")
    if max_settings < 1:
        raise UsageError("--max-settings must be >= 1")
    v = get_variant(variant)
    base = v.resolve(rules)
    cons = [parse_constraint(target), *(parse_constraint(k) for k in keep)]
    settings = _settings(v, vary, max_settings, seed)
    pol = [policies] * v.n_players(base) if isinstance(policies, str) else list(policies)
    blind = rs.is_exact(v, pol)
    payout = set() if simulate_all else set(rs.payout_keys(v))
    groups = _play_groups(settings, payout)
    want_skill = any(c["metric"] == "skill_edge" for c in cons)
    bar = tqdm(
        total=len(groups) + (len(settings) if want_skill else 0),
        desc=f"design {variant}",
        unit="run",
        disable=not progress,
    )
    runs = _DesignRuns(variant, v, base, pol, blind, deals, seed, workers, level)
    frames, method = runs.play(settings, groups, bar)
    deck = any(v.option_map[k].changes_deal for k in vary)
    rows = _metric_rows(settings, frames, method, paired=not deck, level=level)
    if want_skill:
        for s, row in zip(settings, rows, strict=True):
            row.update(runs.skill_edge(s, skill_deals))
            bar.update(1)
    bar.close()
    out = _judge(pd.DataFrame(rows), rows, cons, want_skill)
    out["bot_check"] = "not checked"
    if bot_check and set(pol) == {"strong"} and "value" in v.policies:
        out = _bot_check(out, settings, frames, method, runs, cons, want_skill)
    out.attrs["design"] = {
        "variant": variant,
        "vary": {k: [str(x) for x in vals] for k, vals in vary.items()},
        "target": target,
        "keep": list(keep),
        "deals": deals,
        "seed": seed,
        "rules": base,
        "rules_id": v.rules_id(base),
        "policies": pol,
        "simulated_runs": len(groups),
        "settings": len(settings),
        "space": math.prod(len(set(map(str, vals))) for vals in vary.values()),
        "level": level,
    }
    return out


def _play_groups(settings: list[dict], payout: set) -> dict[tuple, list[int]]:
    """The settings grouped by what must be simulated: their options other than those
    in ``payout`` (which a re-score answers) -> the indices of the settings.
    """
    groups: dict[tuple, list[int]] = {}
    for i, s in enumerate(settings):
        key = tuple(sorted((k, val) for k, val in s.items() if k not in payout))
        groups.setdefault(key, []).append(i)
    return groups


@dataclass(frozen=True)
class _DesignRuns:
    """What every run of a design shares: the variant, the fixed rules, the policies,
    the deals and the one seed (common random numbers).
    """

    variant: str  # as the caller named it
    v: Any  # the registered Variant
    base: dict  # the resolved fixed rules
    policies: list
    blind: bool  # whether a re-score is exact for these policies
    deals: int
    seed: int
    workers: int | None
    level: float

    def play(self, settings, groups, bar) -> tuple[dict, dict]:
        """One simulation per group; each setting's records (re-scored from its group's
        run where its payout options differ) and how they were obtained, by label.
        """
        from engine import simulate
        from engine.runs import rescore as rs

        frames: dict[str, pd.DataFrame] = {}
        method: dict[str, str] = {}
        for key, members in groups.items():
            simulated = dict(key)
            played = {**self.base, **simulated}
            run = simulate(
                self.variant,
                deals=self.deals,
                seed=self.seed,
                rules=played,
                policies=self.policies,
                workers=self.workers,
                progress=False,
            )
            frame = run.to_pandas()
            for i in members:
                s = settings[i]
                changes = {
                    k: val for k, val in s.items() if k not in simulated and self.base[k] != val
                }
                label = _label(s)
                if changes:
                    frames[label], _ = rs.rescore_frame(frame, self.v, played, changes)
                    method[label] = "rescored" if self.blind else "rescored (first-order)"
                else:
                    frames[label] = frame
                    method[label] = "simulated"
            bar.update(1)
        return frames, method

    def skill_edge(self, setting: Mapping, skill_deals: int) -> dict[str, float]:
        """The skill edge of value over efficiency under ``setting`` (duplicate seating
        by dealer, one rung of the ladder), with its interval.
        """
        from analysis.ladder import rung_frames, rung_row

        fr = rung_frames(
            self.v, self.v.resolve({**self.base, **setting}), "value", "efficiency",
            skill_deals, self.seed, workers=self.workers,
        )  # fmt: skip
        rr = rung_row(fr, "value", "efficiency", level=self.level)
        return {
            "skill_edge": float(rr["edge"]),
            "skill_edge_lo": float(rr["edge_lo"]),
            "skill_edge_hi": float(rr["edge_hi"]),
        }


def _metric_rows(settings, frames, method, *, paired: bool, level: float) -> list[dict]:
    """One row per setting: its options, label, method, and every metric but the skill
    edge with its interval (one sweep table over the settings, the first as baseline).
    """
    from analysis.sweep import sweep_table

    labels = [_label(s) for s in settings]
    metrics = [m for m in DESIGN_METRICS if m != "skill_edge"]
    table = sweep_table(
        {lab: frames[lab] for lab in labels},
        option="setting",
        baseline=labels[0],
        metrics=metrics,
        paired=paired,
        level=level,
    )
    est = table.set_index(["option_value", "metric"])
    rows = []
    for s, lab in zip(settings, labels, strict=True):
        row: dict[str, Any] = {**s, "setting": lab, "method": method[lab]}
        for m in metrics:
            r = est.loc[(lab, m)]
            row[m], row[f"{m}_lo"], row[f"{m}_hi"] = (
                float(r["estimate"]),
                float(r["lo"]),
                float(r["hi"]),
            )
        rows.append(row)
    return rows


def _bot_check(out, settings, frames, method, runs, cons, skill) -> pd.DataFrame:
    """The bot guard at the settings the answer names (passing or Pareto); a flagged one
    neither passes nor joins the Pareto set, which is taken again without it.
    """
    from analysis.guard import bot_guard

    pick = [i for i in range(len(out)) if out["passes"].iloc[i] or out["pareto"].iloc[i]]
    if not pick:
        return out
    labels = [_label(settings[i]) for i in pick]
    played = {
        j: {"strong": frames[lab]} for j, lab in enumerate(labels) if method[lab] == "simulated"
    }
    full = [{**runs.base, **settings[i]} for i in pick]
    g = bot_guard(runs.variant, full, runs.deals, seed=runs.seed, workers=runs.workers,
                  level=runs.level, played=played)  # fmt: skip
    out = out.copy()
    for i, r in zip(pick, g.to_dict("records"), strict=True):
        out.loc[out.index[i], "bot_check"] = (
            f"possible bot artifact: {r['why']}" if r["flag"] else "ok"
        )
    bad = out["bot_check"].str.startswith("possible").to_numpy()
    if bad.any():
        out.loc[bad, "passes"] = False
        pts = [-out["dealer_edge_sd"].abs().to_numpy(), out["flow"].to_numpy()]
        if skill:
            pts.append(out["skill_edge"].to_numpy())
        mask = np.zeros(len(out), dtype=bool)
        mask[~bad] = pareto_mask(np.column_stack(pts)[~bad])
        out["pareto"] = mask
    return out


def _judge(out: pd.DataFrame, rows: list[dict], cons: list[dict], skill: bool) -> pd.DataFrame:
    """Add a verdict column per constraint, ``passes`` (meets them all) and ``pareto``
    (over -|dealer edge in SD units|, flow and, when measured, the skill edge).
    """
    verdicts = []
    for c in cons:
        col = f"verdict:{c['text']}"
        out[col] = [
            _verdict(c, r[c["metric"]], r[f"{c['metric']}_lo"], r[f"{c['metric']}_hi"])
            for r in rows
        ]
        verdicts.append(col)
    out["passes"] = (out[verdicts] == "meets").all(axis=1)
    pts = [-out["dealer_edge_sd"].abs().to_numpy(), out["flow"].to_numpy()]
    if skill:
        pts.append(out["skill_edge"].to_numpy())
    out["pareto"] = pareto_mask(np.column_stack(pts))
    return out


def design_plot(table: pd.DataFrame, path) -> None:
    """The trade-off plot: the dealer edge in SD units against flow with intervals,
    passing settings filled, the Pareto set joined, the skill edge as colour when measured.
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from analysis.plots import style

    with style():
        fig, ax = plt.subplots(figsize=(7.5, 5))
        x = table["dealer_edge_sd"].to_numpy()
        y = table["flow"].to_numpy()
        ax.errorbar(
            x,
            y,
            xerr=[x - table["dealer_edge_sd_lo"], table["dealer_edge_sd_hi"] - x],
            yerr=[y - table["flow_lo"], table["flow_hi"] - y],
            fmt="none",
            ecolor="0.6",
            lw=0.8,
            zorder=1,
        )
        colour = table["skill_edge"].to_numpy() if "skill_edge" in table else None
        passes = table["passes"].to_numpy()
        for mask, face, name in ((passes, None, "passes"), (~passes, "none", "does not pass")):
            if not mask.any():
                continue
            kw = dict(c=colour[mask], cmap="viridis") if colour is not None else {}
            sc = ax.scatter(
                x[mask],
                y[mask],
                s=46,
                marker="o",
                edgecolors="C0" if colour is None else "k",
                facecolors=face if face is not None and colour is None else None,
                label=name,
                zorder=3,
                **kw,
            )
            if colour is not None and face is None:
                fig.colorbar(sc, ax=ax, label="skill edge (value over efficiency)")
        par = table[table["pareto"]].sort_values("flow")
        ax.plot(par["dealer_edge_sd"], par["flow"], "k--", lw=0.8, label="Pareto set", zorder=2)
        for r in table.itertuples():
            if r.passes or r.pareto:
                ax.annotate(
                    r.setting,
                    (r.dealer_edge_sd, r.flow),
                    fontsize=6,
                    xytext=(3, 3),
                    textcoords="offset points",
                )
        meta = table.attrs.get("design", {})
        ax.axvline(0, color="0.8", lw=0.6)
        ax.set_xlabel("dealer edge in SD units of a seat's result per deal (95% interval)")
        ax.set_ylabel("flow (points changing hands per deal)")
        ax.set_title(f"{meta.get('variant', '')}: target {meta.get('target', '')}")
        ax.legend(fontsize=7, loc="best")
        fig.tight_layout()
        from engine import fileio

        fileio.atomic_write(path, lambda f: fig.savefig(f, format="png", dpi=130))
        plt.close(fig)


def _values(raw: str) -> tuple[str, list[str]]:
    key, sep, vals = raw.partition("=")
    if not sep or not key.strip() or not vals.strip():
        raise UsageError(f"--vary {raw!r}: write KEY=V1,V2,...")
    values = [x.strip() for x in vals.split(",") if x.strip()]
    twice = next((x for i, x in enumerate(values) if x in values[:i]), None)
    if twice is not None:
        raise UsageError(f"--vary {key.strip()}: the value {twice} is given twice")
    return key.strip(), values


def format_design(table: pd.DataFrame) -> str:
    """The table as text: passing settings first, each metric with its interval."""
    meta = table.attrs.get("design", {})
    verdicts = [c for c in table.columns if c.startswith("verdict:")]
    metrics = [m for m in DESIGN_METRICS if m in table.columns]
    lines = [
        f"design {meta.get('variant')}: {meta.get('settings')} settings of a space of "
        f"{meta.get('space')}, {meta.get('simulated_runs')} simulated on seed "
        f"{meta.get('seed')} ({meta.get('deals'):,} deals each), the rest re-scored; "
        f"policies {','.join(sorted(set(meta.get('policies', []))))}; rules_id of the fixed "
        f"rules {meta.get('rules_id')}",
        f"target {meta.get('target')}"
        + (f"; keep {', '.join(meta.get('keep'))}" if meta.get("keep") else "")
        + "; a verdict reads the 95% interval (meets: all of it; fails: none of it)",
    ]
    order = table.assign(_rel=table["dealer_edge_sd"].abs()).sort_values(
        ["passes", "_rel"], ascending=[False, True]
    )
    artifact = order["bot_check"].astype(str).str.startswith("possible") if (
        "bot_check" in order) else pd.Series(False, index=order.index)  # fmt: skip
    for title, part in (
        ("passing", order[order["passes"]]),
        ("not passing", order[~order["passes"] & ~artifact]),
        ("possible bot artifacts (the bot check fails: not findings)", order[artifact]),
    ):
        if title.startswith("possible") and not len(part):
            continue
        lines.append(f"\n{title} ({len(part)}):")
        for r in part.to_dict("records"):
            cells = [f"{m} {r[m]:.4g} [{r[m + '_lo']:.4g}, {r[m + '_hi']:.4g}]" for m in metrics]
            marks = " ".join(f"{c[8:]}: {r[c]}" for c in verdicts)
            star = " (Pareto)" if r["pareto"] else ""
            check = (
                f"; bot check {r['bot_check']}" if r.get("bot_check", "") != "not checked" else ""
            )
            lines.append(f"  {r['setting']}{star} [{r['method']}{check}]")
            lines.append(f"      {'; '.join(cells)}")
            lines.append(f"      {marks}")
    return "\n".join(lines)
