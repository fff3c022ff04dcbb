"""The numbers of the balance report: the runs it plays and the context (a JSON-able dict)
built from them.
"""

from __future__ import annotations

import os
import platform
import subprocess
import time
from collections.abc import Sequence
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from datetime import UTC, datetime

import numpy as np
import pandas as pd

from analysis import sensitivity as sens_mod
from analysis._util import jsonable
from analysis.compare import METRICS, compare_variants
from analysis.fairness import dealer_edge, fairness_tests
from analysis.frequencies import (
    pattern_frequencies,
    seat_frequencies,
    win_type_frequencies,
)
from analysis.ladder import rung_frames, rung_row
from analysis.payouts import (
    delta_histogram,
    payouts_by_role,
    payouts_by_seat,
    payouts_by_win_type,
    swinginess,
)
from analysis.report._config import (
    _EXPECTED,
    ALPHA,
    BOT_METRICS,
    DEFAULT_SEED,
    FALLBACK_BUDGET,
    LEVEL,
    MATCH_LENGTH,
    MIN_DEALS,
    PILOT_DEALS,
    PRECISION_CAP,
    REPO_ROOT,
    REPORT_POLICY,
    SKILL_PAIRS,
    SWEEP_METRICS,
    _Bar,
    _check_deals,
    _check_precision,
    _skill_pairs,
    budget_for,
    deals_for_precision,
    default_budgets,
    plan_sweeps,
    report_policy,
)
from analysis.report.text import (
    _adjust_report,
    _caveats,
    _methods,
    _rank,
    _rulebook_info,
    _sensitivity_words,
    _simplifications,
    _word_summary,
)
from analysis.risk import (
    loss_curve,
    match_risk,
    match_table,
    seating_match_edges,
    skill_gain,
    stated_amounts,
)
from analysis.skill import duplicate_gain, skill_edge
from analysis.summary import Summary
from analysis.sweep import metric_doc, sweep_table, two_frame_table
from engine.errors import UsageError
from engine.runs.rulesdoc import option_anchor


# ----------------------------------------------------------------------------- build
def build_report(
    variants: Sequence[str] | str | None = None,
    deals: int | None = None,
    seed: int = DEFAULT_SEED,
    workers: int | None = None,
    progress: bool = True,
    precision: float | None = None,
) -> dict:
    """Simulate, analyse and collect every number of the balance report.

    Parameters
    ----------
    variants : sequence of str or str, optional
        Variant names (or ``"a,b"``); default every registered variant.
    deals : int, optional
        Deals of each main run (see :func:`budget_for`); default the budget each
        variant declares (``Variant.report_budget``). At least :data:`MIN_DEALS`.
    seed : int
        The seed of every run.
    workers : int, optional
        Threads per run (default: all cores).
    progress : bool
        Show a tqdm progress bar per stage (on stderr).
    precision : float, optional
        ``--precision``: size the main run, the headline sweeps and the skill runs of
        each variant so that each headline interval (the dealer edge, each headline
        sweep's effect on it, each skill edge; 95%) has about this half-width in SDs of a
        seat's per-deal result, from pilot runs (:func:`_size_by_precision`); not with
        ``deals``. The context's ``precision`` gives the half-widths reached, whatever
        sized the runs.

    Returns
    -------
    dict
        The context: JSON-able (plain dicts, lists, numbers and strings, NaN as None);
        its tables are the analysis layer's tidy frames as lists of row dicts. Keys
        ``title, generated, settings, summary, panel, variants, skipped, methods,
        caveats, rulebook``.

    Raises
    ------
    UsageError
        Unknown variant, ``deals`` below :data:`MIN_DEALS`, negative seed, ``workers <
        1``.
    """
    t_start, c_start = time.perf_counter(), _cpu_seconds()
    plan = _plan_report(variants, deals, seed, workers, precision)
    names = plan.names
    timing: dict[str, float] = {}
    sizing = None
    if precision is not None:
        with _timed(timing, "pilot"):
            sizing = _size_by_precision(plan, precision, progress)
    with _timed(timing, "main"):
        mains = _play_main(plan, progress)
    with _timed(timing, "sweeps"):
        sweeps, played = _play_sweeps(plan, mains, progress)
    with _timed(timing, "guard"):
        guarded = _guard_sweeps(plan, mains, sweeps, played, progress)
    with _timed(timing, "skill"):
        skill, skill_frames = _play_skill(plan, mains, progress)
    with _timed(timing, "sensitivity"):
        # the screen: payout options re-scored from the value bots' main run, play options
        # played by value bots (cheaper); the value bots' runs at the headline sweeps'
        # values are reused (the sweeps' own where they played value, else the bot
        # check's: the same seed and rules, so the same deals)
        reuse = {n: (played[n] if plan.bots[n] == "value" else guarded[n]) for n in names}
        sens = _run_sensitivity(
            names, plan.budgets, mains.value, reuse, plan.seed, plan.workers, progress
        )
    with _timed(timing, "confirm"):
        # the values that could matter, played at full size on a fresh seed by the
        # report's bots, and the skill edge under those confirmed
        _confirm_changes(plan, sens, skill_frames, progress)
    with _timed(timing, "whatif"):
        # the payout options that move the dealer edge most, re-scored from the main
        # runs' deals, with one re-simulation as a check
        whatif = {}
        for n in names:
            v, budget = plan.vobj[n], plan.budgets[n]
            whatif[n] = _whatif_section(v, mains.strong[n], mains.meta[n], budget, plan.run)
    with _timed(timing, "analysis"):
        sections, panel = _analyse(plan, mains, sweeps, skill, sens, whatif, progress)
        panel_rows = jsonable(panel)
        long_names = {n: plan.vobj[n].long_name for n in names}
        edges = {n: sections[n]["dealer_edge"] for n in names}
        senses = _rank(panel_rows, long_names, edges)
        family = _adjust_report(sections, senses)
    with _timed(timing, "audit"):
        for n in names:
            sections[n]["audit"] = _audit_section(plan, n)
    summary = _summary(plan, senses, family, sections)
    summary["precision"] = _precision_reached(plan, sections, precision, sizing)
    timing["total"] = time.perf_counter() - t_start
    timing["total_cpu"] = _cpu_seconds() - c_start
    return jsonable(_context(plan, summary, panel_rows, sections, timing))


@dataclass(frozen=True)
class _ReportPlan:
    """What every stage of a report shares: the variants, their budgets and bots, the
    headline sweeps planned, the sections skipped, the seed and the threads.
    """

    names: list[str]
    vobj: dict  # name -> registered Variant
    budgets: dict  # name -> its budget (analysis.report._config.budget_for)
    bots: dict[str, str]  # name -> the report's policy for it
    sweeps: list[dict]  # the headline sweeps (plan_sweeps)
    skipped: list[dict]
    deals: int | None  # --deals as given
    seed: int
    workers: int | None

    def run(self, name, n, rules=None, policies=None):
        """One run of the report: ``n`` deals of ``name`` on the report's seed, its
        matches and threads, the report's policy unless told otherwise.
        """
        from engine.runs.run import simulate

        if policies is None:
            policies = report_policy(self.vobj[name])
        return simulate(
            name,
            n,
            seed=self.seed,
            rules=rules,
            policies=policies,
            match_length=MATCH_LENGTH,
            workers=self.workers,
            progress=False,
        )


def _plan_report(variants, deals, seed, workers, precision=None) -> _ReportPlan:
    """Check the arguments (a usage error for each bad one) and plan the report."""
    from engine import variants as registry

    all_variants = variants is None
    names = registry.chosen(variants)
    _check_deals(deals)
    _check_precision(precision, deals)
    if isinstance(seed, bool) or not isinstance(seed, int | np.integer) or seed < 0:
        raise UsageError(f"--seed must be an integer >= 0, got {seed!r}")
    if workers is not None and workers < 1:
        raise UsageError(f"--workers must be >= 1, got {workers}")
    budgets = {n: budget_for(n, deals) for n in names}
    plans, skipped = plan_sweeps(names)
    if all_variants:
        for missing in sorted(set(_EXPECTED) - set(registry.names())):
            skipped.insert(
                0,
                {
                    "variant": missing,
                    "what": "every section",
                    "reason": f"variant {missing} is not registered in this build",
                },
            )
    vobj = {n: registry.get(n) for n in names}
    bots = {n: report_policy(vobj[n]) for n in names}
    return _ReportPlan(names, vobj, budgets, bots, plans, skipped, deals, int(seed), workers)


@contextmanager
def _timed(timing: dict[str, float], stage: str):
    """Record a stage's wall time as ``timing[stage]`` and its CPU time as
    ``timing[stage + "_cpu"]``.
    """
    t0, c0 = time.perf_counter(), _cpu_seconds()
    yield
    timing[stage] = time.perf_counter() - t0
    timing[f"{stage}_cpu"] = _cpu_seconds() - c0


@dataclass(frozen=True)
class _MainRuns:
    """Each variant's main run under the report's bots, the same deals under value bots
    (the same frame where the report plays value), and the run's rules and policies.
    """

    strong: dict[str, pd.DataFrame]
    value: dict[str, pd.DataFrame]
    meta: dict[str, dict]  # name -> {rules, rules_id, policies}


def _half_sd(lo, hi, sd) -> float:
    """The half-width of ``[lo, hi]`` in units of ``sd`` (NaN where any is missing)."""
    if lo is None or hi is None or sd is None or not sd > 0:
        return float("nan")
    return float(hi - lo) / 2 / float(sd)


def _size_by_precision(plan: _ReportPlan, target: float, progress: bool) -> dict:
    """Stage 0 under ``--precision``: pilot runs of :data:`PILOT_DEALS` deals (the main
    run, each headline sweep value, each skill seating) measure each headline interval's
    half-width in SD units, and :func:`deals_for_precision` sizes each stage from the
    widest of its intervals (at most :data:`PRECISION_CAP` times its declared deals). The
    pilots' variances set the sizes, never their estimates (fixed-precision sizing, no
    stopping on significance). Replaces ``plan.budgets``; returns each variant's sizing.
    """
    from dataclasses import replace

    k = PILOT_DEALS
    bar = _Bar(progress, len(plan.names), "0 pilots", unit="variant")
    out = {}
    try:
        for n in plan.names:
            bar.set_postfix_str(n)
            v, b = plan.vobj[n], plan.budgets[n]
            main = plan.run(n, k).to_pandas()
            de = dealer_edge(Summary.from_records(main), level=LEVEL).iloc[0]
            sd = float(de["sd"])
            halves = {"main": _half_sd(de["lo"], de["hi"], sd), "sweep": 0.0, "skill": 0.0}
            for p in (p for p in plan.sweeps if p["variant"] == n):
                opt = v.option_map[p["option"]]
                for val in p["values"]:
                    if val == opt.default:
                        continue
                    f = plan.run(n, k, rules={opt.key: val}).to_pandas()
                    t = sweep_table({opt.default: main, val: f}, option=opt.key,
                                    baseline=opt.default, metrics=["dealer_edge"], level=LEVEL,
                                    paired=not opt.changes_deal, adjust="none")  # fmt: skip
                    r = t[~t["is_baseline"]].iloc[0]
                    halves["sweep"] = max(halves["sweep"], _half_sd(r["diff_lo"], r["diff_hi"], sd))
            for strong, weak in _skill_pairs(v):
                frames = rung_frames(v, v.resolve(None), strong, weak, k, plan.seed,
                                     workers=plan.workers, match_length=MATCH_LENGTH)  # fmt: skip
                t = skill_edge(frames, seating="dealer", level=LEVEL)
                r = t[t["format"] == "duplicate"].iloc[0]
                halves["skill"] = max(halves["skill"], _half_sd(r["lo"], r["hi"], sd))
            size = {
                stage: min(deals_for_precision(k, h, target), PRECISION_CAP * getattr(b, stage))
                for stage, h in halves.items()
            }
            # the stages that reuse the main run's or the skill runs' first deals fit in them
            main_n = max(size["main"], size["sweep"])
            plan.budgets[n] = replace(
                b, main=main_n, sweep=size["sweep"], skill=size["skill"],
                sensitivity=min(b.sensitivity, main_n), whatif_check=min(b.whatif_check, main_n),
                sensitivity_skill=min(b.sensitivity_skill, size["skill"]),
            )  # fmt: skip
            out[n] = {
                "pilot": k,
                "half": halves,
                "deals": size,
                "capped": [s for s in size if size[s] == PRECISION_CAP * getattr(b, s)],
            }
            bar.update(1)
    finally:
        bar.close()
    return out


def _precision_reached(plan: _ReportPlan, sections: dict, target, sizing) -> dict:
    """The half-widths (95%, in SDs of a seat's per-deal result) each variant's headline
    intervals reached: the dealer edge, the widest headline sweep effect on it and the
    widest skill edge; with the target and the pilots' sizing under ``--precision``.
    """
    out = {"target": target, "level": LEVEL, "variants": {}}
    for n in plan.names:
        sec = sections[n]
        de = sec["dealer_edge"]
        sd = de.get("sd")
        sweeps = [
            _half_sd(r.get("raw_lo", r["diff_lo"]), r.get("raw_hi", r["diff_hi"]), sd)
            for sw in sec["sweeps"] for r in sw["table"]
            if r["metric"] == "dealer_edge" and not r.get("is_baseline")
        ]  # fmt: skip
        skills = [
            _half_sd(row["lo"], row["hi"], sd)
            for k in sec["skill"] for row in k["table"] if row["format"] == "duplicate"
        ]  # fmt: skip
        out["variants"][n] = {
            "dealer_edge": _half_sd(de.get("lo"), de.get("hi"), sd),
            "sweep": max(sweeps, default=None),
            "skill": max(skills, default=None),
            "sizing": (sizing or {}).get(n),
        }
    return out


def _play_main(plan: _ReportPlan, progress: bool) -> _MainRuns:
    """Stage 1: the main runs, each played again by value bots on the same deals."""
    budgets, bots = plan.budgets, plan.bots
    total = sum(b.main * (2 if bots[n] != "value" else 1) for n, b in budgets.items())
    bar = _Bar(progress, total, "1/5 main runs")
    main: dict[str, pd.DataFrame] = {}
    main_value: dict[str, pd.DataFrame] = {}
    runs_meta: dict[str, dict] = {}
    try:
        for n in plan.names:
            bar.set_postfix_str(f"{n} {bots[n]}")
            r = plan.run(n, budgets[n].main)
            main[n] = r.to_pandas()
            runs_meta[n] = {"rules": r.rules, "rules_id": r.rules_id, "policies": r.policies}
            bar.update(budgets[n].main)
            if bots[n] != "value":
                bar.set_postfix_str(f"{n} value")
                main_value[n] = plan.run(n, budgets[n].main, policies="value").to_pandas()
                bar.update(budgets[n].main)
            else:
                main_value[n] = main[n]
    finally:
        bar.close()
    return _MainRuns(main, main_value, runs_meta)


def _play_sweeps(plan: _ReportPlan, mains: _MainRuns, progress: bool):
    """Stage 2: the headline sweeps on common random numbers (the same seed under every
    value; the default value's records are the main run's first deals). Returns each
    variant's sweep entries and the records played, ``(option, value) -> frame``.
    """
    total = sum(plan.budgets[p["variant"]].sweep * (len(p["values"]) - 1) for p in plan.sweeps)
    bar = _Bar(progress, total, "2/5 sweeps")
    sweeps: dict[str, list[dict]] = {n: [] for n in plan.names}
    played: dict[str, dict] = {n: {} for n in plan.names}  # for reuse by the sensitivity
    try:
        for p in plan.sweeps:
            name, key = p["variant"], p["option"]
            default = plan.vobj[name].option_map[key].default
            sweep_deals = plan.budgets[name].sweep
            frames, rules_ids = {}, {}
            for val in p["values"]:
                bar.set_postfix_str(f"{name} {key}={val}")
                if val == default:
                    frames[val] = mains.strong[name].iloc[:sweep_deals].reset_index(drop=True)
                    rules_ids[val] = mains.meta[name]["rules_id"]
                    continue
                r = plan.run(name, sweep_deals, rules={key: val})
                frames[val] = r.to_pandas()
                played[name][(key, val)] = frames[val]
                rules_ids[val] = r.rules_id
                bar.update(sweep_deals)
            sweeps[name].append(_sweep_entry(plan.vobj[name], p, frames, rules_ids, sweep_deals))
    finally:
        bar.close()
    return sweeps, played


def _sweep_entry(v, p: dict, frames: dict, rules_ids: dict, deals: int) -> dict:
    """One headline sweep's entry: its option and values, the metrics' definitions and
    the sweep table (paired unless the option changes the cards dealt).
    """
    key = p["option"]
    option = v.option_map[key]
    metrics, table = _sweep_frames_table(v, key, frames)
    paired = not option.changes_deal
    return {
        "option": key,
        "title": p["title"],
        "values": p["values"],
        "baseline": option.default,
        "paired": paired,
        "metric_docs": [{"metric": m, "doc": metric_doc(m)} for m in metrics],
        "deals": deals,
        "rules_ids": [{"value": k, "rules_id": i} for k, i in rules_ids.items()],
        "doc": option.doc,
        "rulebook": option.rulebook,
        "table": jsonable(table),
    }


def _sweep_frames_table(v, key: str, frames: dict) -> tuple[list[str], pd.DataFrame]:
    """The sweep table of option ``key`` over ``frames`` (value -> records, the option's
    default among them): ``(metrics, table)``, paired unless the option changes the
    cards dealt.
    """
    option = v.option_map[key]
    big = [pp.name for pp in v.patterns if pp.big]
    metrics = [m for m in SWEEP_METRICS if m != "big_hand_per_win" or big]
    table = sweep_table(
        frames,
        option=key,
        baseline=option.default,
        metrics=metrics,
        big=big or None,
        level=LEVEL,
        paired=not option.changes_deal,
    )
    return metrics, table


def _value_effects(v, sw: dict, frames: dict) -> list[dict]:
    """Each value's effect under value bots, for the bot sensitivity's side by side:
    the sweep table of the value runs ``frames`` (the same values, seed and deals as the
    sweep's), each bot metric's difference from the baseline with its unadjusted 95%
    interval (no verdict is drawn from them, so they join no family).
    """
    _, table = _sweep_frames_table(v, sw["option"], frames)
    out = []
    for row in jsonable(table):
        if row.get("is_baseline") or row["metric"] not in BOT_METRICS:
            continue
        lo, hi = _unadjusted(row)
        out.append(
            {
                "option_value": row["option_value"],
                "metric": row["metric"],
                "diff": row.get("diff"),
                "lo": lo,
                "hi": hi,
            }
        )
    return out


def _unadjusted(row: dict) -> tuple:
    """A tested row's unadjusted interval ``(lo, hi)``: ``raw_lo`` / ``raw_hi`` once the
    report-wide adjustment has rewritten ``diff_lo`` / ``diff_hi``, else those.
    """
    return row.get("raw_lo", row.get("diff_lo")), row.get("raw_hi", row.get("diff_hi"))


def _play_skill(plan: _ReportPlan, mains: _MainRuns, progress: bool):
    """Stage 3: skill vs luck by duplicate seating, the strong policy in each place from
    the dealer, per skill pair. Returns each variant's skill entries and, for the
    sensitivity table's skill column, the frames of :data:`sens_mod.SKILL_PAIR`.
    """
    total = 0
    for n in plan.names:
        seats = plan.vobj[n].n_players(mains.meta[n]["rules"])
        total += plan.budgets[n].skill * seats * len(_skill_pairs(plan.vobj[n]))
    bar = _Bar(progress, total, "3/5 skill vs luck")
    skill: dict[str, list[dict]] = {n: [] for n in plan.names}
    skill_frames: dict[str, dict] = {}
    try:
        for n in plan.names:
            v = plan.vobj[n]
            rules = mains.meta[n]["rules"]
            for strong, weak in _skill_pairs(v):
                bar.set_postfix_str(f"{n} {strong} vs {weak}")
                # one rung of the ladder (analysis.ladder): one run per place from the dealer
                frames = rung_frames(
                    v, rules, strong, weak, plan.budgets[n].skill, plan.seed,
                    workers=plan.workers, match_length=MATCH_LENGTH, bar=bar,
                )  # fmt: skip
                if (strong, weak) == sens_mod.SKILL_PAIR:
                    skill_frames[n] = frames
                entry = _skill_entry(n, strong, weak, frames)
                skill[n].append(
                    {
                        "strong": strong,
                        "weak": weak,
                        "seatings": v.n_players(rules),
                        "deals_per_seating": plan.budgets[n].skill,
                        **entry,
                    }
                )
    finally:
        bar.close()
    return skill, skill_frames


def _guard_sweeps(plan: _ReportPlan, mains: _MainRuns, sweeps: dict, played: dict, progress):
    """Stage 2b: the bot guard (:mod:`analysis.guard`) at every headline sweep value the
    report's strong bots played, at the sweep's own N on the report's seed: the sweep's
    strong records and the main runs' first deals (strong and value) are reused, so each
    value costs a value run and a strong-against-value rung. Each sweep entry gets
    ``guard`` (one row per value) and each row of a flagged value ``bot_artifact`` (why).
    Each entry also gets ``value_effects``: the sweep's effects under value bots on the
    same deals (the bot check's value runs and the value main run's first deals), for
    the bot sensitivity. Returns the value runs played, ``variant -> {(option, value):
    frame}``, for the sensitivity screen (value bots on the same seed).
    """
    from analysis.guard import bot_guard

    todo = [
        (n, sw)
        for n in plan.names
        if plan.bots[n] == "strong" and "value" in plan.vobj[n].policies
        for sw in sweeps[n]
    ]
    total = sum(plan.budgets[n].sweep * 2 * (len(sw["values"]) - 1) for n, sw in todo)
    bar = _Bar(progress, total, "2b bot check")
    values: dict[str, dict] = {n: {} for n in plan.names}
    try:
        for n, sw in todo:
            key, deals = sw["option"], plan.budgets[n].sweep
            bar.set_postfix_str(f"{n} {key}")
            vals = [x for x in sw["values"] if x != sw["baseline"]]
            frames = {i: {"strong": played[n][(key, x)]} for i, x in enumerate(vals)}
            base = {"strong": mains.strong[n], "value": mains.value[n]}
            kept: dict[int, dict] = {}
            g = bot_guard(n, [{key: x} for x in vals], deals, seed=plan.seed,
                          workers=plan.workers, level=LEVEL, played=frames, base=base,
                          keep=kept)  # fmt: skip
            for i, x in enumerate(vals):
                values[n][(key, x)] = kept[i]["value"]
            same = {x: values[n][(key, x)] for x in vals}
            same[sw["baseline"]] = mains.value[n].iloc[:deals].reset_index(drop=True)
            sw["value_effects"] = _value_effects(plan.vobj[n], sw, same)
            g.insert(0, "option_value", vals)
            sw["guard"] = jsonable(g)
            why = {str(x): w for x, w, f in zip(vals, g["why"], g["flag"], strict=True) if f}
            for row in sw["table"]:
                row["bot_artifact"] = why.get(str(row["option_value"]))
            bar.update(deals * 2 * len(vals))
    finally:
        bar.close()
    return values


def _confirm_changes(plan: _ReportPlan, sens: dict, skill_frames: dict, progress: bool) -> None:
    """Stage 4b: the second stage of the sensitivity design. Each variant's values whose
    screened change of the dealer edge in SD units could matter (resolved by the screen,
    or within the interval of the largest change: :func:`analysis.recommend.
    fairness_changes` with ``near_largest``; the :data:`CONFIRM_TOP` largest each way)
    are played again at full size (``ReportBudget.confirm`` deals) by the report's bots
    on a fresh seed (:func:`analysis.recommend.confirm_changes`), with the bot guard at
    those settings on the same deals; then the skill edge under each confirmed value of a
    play option (:func:`analysis.sensitivity.skill_table`, ``sensitivity_skill`` deals
    per place on the report's seed, the skill section's runs its defaults), appended to
    the table. Sets the sensitivity entry's ``screened_in``, ``changes``, ``confirm``
    and ``guard``; the words (:func:`analysis.report.text._sensitivity_words`) recommend
    only confirmed changes the guard does not flag.

    The guard checks these settings only, not all of the table's values: strong bots at
    every value would cost several times the whole table, and these are the settings the
    report turns into advice. The table's other rows are value-bot screens and say so.
    """
    from analysis.guard import bot_guard
    from analysis.recommend import CONFIRM_SEED, changes_json, confirm_changes, fairness_changes
    from analysis.report._config import CONFIRM_TOP

    picks = {}
    for n in plan.names:
        sv = sens.get(n)
        if not sv:
            continue
        ch = fairness_changes(sv["table"], alpha=sens_mod.SCREEN_Q, near_largest=True)
        fairer = ch[ch["direction"] == "fairer"].head(CONFIRM_TOP)
        worse = ch[ch["direction"] == "less fair"].iloc[::-1].head(CONFIRM_TOP)
        picks[n] = (ch, pd.concat([fairer, worse], ignore_index=True))
    budgets = plan.budgets
    total = sum(budgets[n].confirm * (1 + 3 * len(p)) for n, (_, p) in picks.items() if len(p))
    bar = _Bar(progress, total, "4b confirmations")
    seed = plan.seed + CONFIRM_SEED
    try:
        for n, (ch, pick) in picks.items():
            sv = sens[n]
            k = budgets[n].confirm
            sv["confirm"] = None
            sv["guard"] = []
            played = {(r["option"], r["option_value"]) for r in pick.to_dict("records")}
            sv["screened_in"] = [
                {
                    "option": r["option"],
                    "option_value": r["option_value"],
                    "resolved": bool(r["resolved"]),
                    "direction": r["direction"],
                    "played": k >= MIN_DEALS and (r["option"], r["option_value"]) in played,
                }
                for r in ch.to_dict("records")
            ]
            if k < MIN_DEALS:
                sv["changes"] = changes_json(ch, [], {})
                continue
            v = plan.vobj[n]
            bar.set_postfix_str(f"{n} ({len(pick)} changes)")
            conf = confirm_changes(
                v, pick, k, seed=seed, policies=plan.bots[n], workers=plan.workers,
                level=LEVEL, alpha=ALPHA, match_length=MATCH_LENGTH,
            )  # fmt: skip
            bar.update(k * (1 + len(pick)))
            flags = {}
            if len(pick) and plan.bots[n] == "strong" and "value" in v.policies:
                keys = list(conf["frames"])
                settings = [{o: v.option_map[o].parse(str(x))} for o, x in keys]
                g = bot_guard(n, settings, k, seed=seed, workers=plan.workers, level=LEVEL,
                              played={i: {"strong": conf["frames"][key]}
                                      for i, key in enumerate(keys)},
                              base={"strong": conf["base"]})  # fmt: skip
                g.insert(0, "option", [o for o, _ in keys])
                g.insert(1, "option_value", [str(x) for _, x in keys])
                sv["guard"] = jsonable(g)
                flags = {(r["option"], r["option_value"]): r["why"]
                         for r in sv["guard"] if r["flag"]}  # fmt: skip
            bar.update(k * 2 * len(pick))
            sv["confirm"] = {
                "seed": seed,
                "deals": k,
                "policies": plan.bots[n],
                "table": jsonable(conf["table"]),
            }
            sv["changes"] = changes_json(ch, conf["table"], flags)
            _confirmed_skill(plan, n, sv, skill_frames.get(n))
    finally:
        bar.close()


def _confirmed_skill(plan: _ReportPlan, n: str, sv: dict, skill_base) -> None:
    """The skill edge under each confirmed value of a play option, appended to the table
    (a payout option changes no play, so it is left out).
    """
    v, k = plan.vobj[n], plan.budgets[n].sensitivity_skill
    keys = []
    for r in (sv.get("confirm") or {}).get("table", []):
        opt = v.option_map[r["option"]]
        if r["confirmed"] and not opt.payout:
            keys.append((opt.key, opt.parse(str(r["option_value"]))))
    sv["skill_deals"] = k if keys and k >= MIN_DEALS else 0
    if not sv["skill_deals"]:
        return
    extra = sens_mod.skill_table(
        n, keys, k, seed=plan.seed, workers=plan.workers, level=LEVEL, skill_base=skill_base
    )
    sv["table"] = [*sv["table"], *jsonable(extra)]
    sv["metrics"] = [*sens_mod.METRICS, sens_mod.SKILL_METRIC]
    sv["metric_docs"] = sens_mod.metric_docs(skill=True)


def _audit_section(plan: _ReportPlan, name: str) -> dict | None:
    """The decision audit of the report's bots (``mjlab audit``) on ``ReportBudget.audit`` deals
    of the report's seed: each rate with its 95% interval (:func:`analysis.audit_table`).
    """
    from analysis.audit import audit_table
    from engine.runs.audit import audit

    k = plan.budgets[name].audit
    if k <= 0:
        return None
    try:
        res = audit(name, deals=k, seed=plan.seed, policy=plan.bots[name],
                    match_length=MATCH_LENGTH)  # fmt: skip
    except UsageError as exc:
        return {"policy": plan.bots[name], "deals": k, "table": [], "reason": str(exc)}
    return {
        "policy": res["policy"],
        "deals": res["deals"],
        "seed": res["seed"],
        "rules_id": res["rules_id"],
        "bots": res["bots"],
        "command": f"mjlab audit {name} --policy {res['policy']} --deals {k} --seed {res['seed']}",
        "table": jsonable(audit_table(res, level=LEVEL)),
    }


def _skill_entry(name: str, strong: str, weak: str, frames: dict) -> dict:
    """One skill pair's numbers: the duplicate gain, the ladder rung, the skill edge
    table by dealer seating and the gain per match.
    """
    table = skill_edge(frames, seating="dealer", level=LEVEL)
    table = table.set_index("format", drop=False)
    edges = _skill_match_edges(name, strong, weak, frames)
    return {
        "duplicate_gain": duplicate_gain(table),
        "rung": jsonable(pd.DataFrame([rung_row(frames, strong, weak, LEVEL)]))[0],
        "table": jsonable(table.reset_index(drop=True)),
        "gain": _skill_gain_entry(edges),
    }


def _analyse(plan: _ReportPlan, mains: _MainRuns, sweeps, skill, sens, whatif, progress):
    """Stage 5: each variant's section from its main run (with its sweeps, skill,
    sensitivity, what-if and bot sensitivity), and the cross-variant panel.
    """
    names = plan.names
    bar = _Bar(progress, len(names), "5/5 analysis", unit="variant")
    sections = {}
    try:
        for n in names:
            bar.set_postfix_str(n)
            v = plan.vobj[n]
            sections[n] = _variant_section(
                v, mains.strong[n], mains.meta[n], plan.budgets[n], sweeps[n], skill[n]
            )
            sections[n]["sensitivity"] = sens[n]
            sections[n]["whatif"] = whatif[n]
            sections[n]["bots"] = _bot_sensitivity(
                v, plan.bots[n], mains.strong[n], mains.value[n], sections[n]["sweeps"], sens[n]
            )
            bar.update(1)
        panel = compare_variants(
            {n: mains.strong[n] for n in names},
            big={n: [p.name for p in plan.vobj[n].patterns if p.big] for n in names},
            skill={n: pd.DataFrame(skill[n][0]["table"]) for n in names if skill[n]},
            level=LEVEL,
        )
    finally:
        bar.close()
    return sections, panel


def _summary(plan: _ReportPlan, senses: list, family: str, sections: dict) -> dict:
    """The headline in words (the ranking, from gaps adjusted with every p-value of the
    report), the recommendations and one box per variant.
    """
    long_names = {n: plan.vobj[n].long_name for n in plan.names}
    summary = _word_summary(senses, long_names, family)
    summary["recommendations"] = _sensitivity_words(sections, family)
    summary["boxes"] = {n: _box(sections[n]) for n in plan.names}
    return summary


def _over(x, sd):
    """``x / sd``, None where either is missing."""
    if x is None or sd is None or not sd > 0 or not np.isfinite(x):
        return None
    return float(x) / float(sd)


def _box(sec: dict) -> dict:
    """A variant's summary box: its fairness verdict, what skill is worth and the one most
    useful change, each with its interval (the details are in its section).
    """
    ft = sec["fairness"]
    rows = ft.to_dict("records") if isinstance(ft, pd.DataFrame) else list(ft)
    edge = next((r for r in rows if r["test"] == "dealer_edge"), None)
    equiv = next((r for r in rows if r["test"] == "dealer_equivalence"), None)
    de = sec["dealer_edge"]
    fair = None
    if edge is not None:
        fair = {
            "resolved": bool(edge["reject"]),
            "fair_within": bool(equiv["reject"]) if equiv is not None else None,
            "margin_sd": equiv.get("margin_sd") if equiv is not None else None,
            "edge": edge["effect"],
            "lo": edge["effect_lo"],
            "hi": edge["effect_hi"],
            "level": edge["effect_level"],
            "p_adj": edge["p_adj"],
            # in SD units: the same interval (at the level of the adjusted test) over the
            # per-deal SD of a seat's result
            "edge_sd": de.get("edge_sd"),
            "lo_sd": _over(edge["effect_lo"], de.get("sd")),
            "hi_sd": _over(edge["effect_hi"], de.get("sd")),
            "unit": sec["value_unit"],
        }
    skill = None
    ladder = {(k["strong"], k["weak"]): k for k in sec["skill"]}
    for pair in (("strong", "value"), ("value", "efficiency"), ("efficiency", "random")):
        k = ladder.get(pair)
        if k is not None and k.get("gain"):
            g = k["gain"]
            resolved = g.get("lo") is not None and g["lo"] > 0
            skill = {
                "strong": pair[0],
                "weak": pair[1],
                "mean": g["mean"],
                "lo": g["lo"],
                "hi": g["hi"],
                "resolved": bool(resolved),
                "matches": g.get("matches") if resolved else None,
            }
            break
    sv = sec.get("sensitivity") or {}
    printed = [c for c in sv.get("changes", []) if c["printed"] and c["direction"] == "fairer"]
    change = printed[0] if printed else None
    return {"fairness": fair, "skill": skill, "change": change, "policies": sec["policies"]}


def _context(plan: _ReportPlan, summary, panel_rows, sections, timing) -> dict:
    """The report's context: what generated it, its settings, and every section."""
    from engine import __version__

    names = plan.names
    rulebook = _rulebook_info()
    return {
        "title": "mjlab balance report",
        "generated": {
            "utc": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
            "package_version": __version__,
            "git_sha": _git_sha(),
            "python": platform.python_version(),
            "numpy": np.__version__,
            "pandas": pd.__version__,
            "numba": _numba_version(),
            "platform": platform.platform(terse=True),
            "cpus": os.cpu_count(),
            "seconds": {k: round(v, 1) for k, v in timing.items()},
        },
        "settings": {
            "variants": names,
            "seed": plan.seed,
            "deals_option": plan.deals,
            "budgets": {n: asdict(plan.budgets[n]) for n in names},
            "default_budgets": {n: asdict(b) for n, b in default_budgets().items()},
            "fallback_budget": asdict(FALLBACK_BUDGET),
            "match_length": MATCH_LENGTH,
            "min_deals": MIN_DEALS,
            "workers": plan.workers,
            "level": LEVEL,
            "policy": REPORT_POLICY,
            "policies": plan.bots,
            "skill_pairs": [list(p) for p in SKILL_PAIRS],
        },
        "summary": summary,
        "panel": panel_rows,
        "panel_metrics": [{"metric": k, "unit": u} for k, u in METRICS.items()],
        "variants": sections,
        "skipped": plan.skipped,
        "methods": _methods(),
        "caveats": _caveats(rulebook),
        "rulebook": rulebook,
    }


def _bot_sensitivity(v, policy, strong, value, sweeps, sens) -> dict | None:
    """How the variant's headlines depend on the bot: each of :data:`BOT_METRICS` under
    ``value`` and under the report's policy on the same deals (paired by deal, as a sweep
    over the bot), and each headline sweep's effect under both bots side by side (the
    value bots' from the sensitivity table, same deals per value where budgets agree).
    None when the report plays value bots.
    """
    if policy == "value":
        return None
    table = sweep_table(
        {"value": value, policy: strong},
        option="bot",
        baseline="value",
        metrics=list(BOT_METRICS),
        level=LEVEL,
        paired=True,
    )
    vt = {}
    for row in (sens or {}).get("table", []):
        vt[(row["option"], str(row["option_value"]), row["metric"])] = (
            row.get("diff"), *_unadjusted(row)
        )  # fmt: skip
    effects = []
    for sw in sweeps:
        # the bot check's value runs on the sweep's own deals where it played them, else
        # the sensitivity table's (value bots, its own N)
        same = {
            (str(e["option_value"]), e["metric"]): (e["diff"], e["lo"], e["hi"])
            for e in sw.get("value_effects", [])
        }
        for row in sw["table"]:
            if row.get("is_baseline") or row["metric"] not in BOT_METRICS:
                continue
            at = (str(row["option_value"]), row["metric"])
            other = same.get(at) if "value_effects" in sw else vt.get((sw["option"], *at))
            if other is None:  # a metric or value the sensitivity table does not hold
                continue
            lo, hi = _unadjusted(row)
            effects.append(  # side by side, no verdict: the unadjusted 95% intervals
                {
                    "option": sw["option"],
                    "option_value": row["option_value"],
                    "metric": row["metric"],
                    "strong": row.get("diff"),
                    "strong_lo": lo,
                    "strong_hi": hi,
                    "value": other[0],
                    "value_lo": other[1],
                    "value_hi": other[2],
                    "same_deals": "value_effects" in sw,
                }
            )
    return {
        "policy": policy,
        "deals": int(len(strong)),
        "table": jsonable(table),
        "metric_docs": [{"metric": m, "doc": metric_doc(m)} for m in BOT_METRICS],
        "sweep_effects": effects,
    }


WHATIF_TOP = 3
"""Payout options the what-if section shows per variant (those that move the edge most)."""


def _whatif_section(v, df, meta, budget, run) -> dict | None:
    """The what-if section: the dealer edge under each value of the payout options that
    move it most, re-scored from the main run (analysis.rescoring.whatif_table), and the
    largest of those changes re-simulated on ``budget.whatif_check`` deals as a check.
    """
    from analysis.rescoring import whatif_table
    from engine.runs import rescore as rs

    keys = rs.payout_keys(v)
    if not keys:
        return None
    frame = df.copy(deep=False)
    frame.attrs["mjlab"] = {"variant": v.name, "rules": meta["rules"],
                            "policies": list(meta["policies"])}  # fmt: skip
    table = whatif_table(frame, level=LEVEL)
    top = list(dict.fromkeys(table["option"]))[:WHATIF_TOP]
    options = []
    for key in top:
        o = v.option_map[key]
        rows = table[table["option"] == key]
        options.append(
            {
                "option": key,
                "doc": o.doc,
                "rulebook": o.rulebook,
                "move": float(rows["move"].iloc[0]),
                "rows": jsonable(rows.drop(columns=["option", "move"])),
            }
        )
    exact = rs.is_exact(v, meta["policies"])
    check = None
    k = min(budget.whatif_check, len(df))
    if k >= MIN_DEALS and options:
        best = table[(table["option"] == top[0]) & ~table["is_recorded"]]
        best = best.loc[best["diff"].abs().idxmax()]
        key, val = top[0], best["value"]
        sim = run(v.name, k, rules={**meta["rules"], key: val}).to_pandas()
        part = frame.iloc[:k].reset_index(drop=True)
        part.attrs["mjlab"] = frame.attrs["mjlab"]
        again, _ = rs.rescore_frame(part, v, meta["rules"], {key: val})
        t = two_frame_table(
            {"rescored": again, "simulated": sim},
            baseline="simulated",
            metrics=["dealer_edge"],
            level=LEVEL,
        ).iloc[0]
        check = {
            "option": key,
            "value": val,
            "deals": k,
            "rescored": float(t["rescored"]),
            "rescored_lo": float(t["rescored_lo"]),
            "rescored_hi": float(t["rescored_hi"]),
            "simulated": float(t["simulated"]),
            "simulated_lo": float(t["simulated_lo"]),
            "simulated_hi": float(t["simulated_hi"]),
            "gap": float(t["diff"]),
            "gap_lo": float(t["diff_lo"]),
            "gap_hi": float(t["diff_hi"]),
        }
        check["resolved"] = not (check["gap_lo"] <= 0 <= check["gap_hi"])
        cols = ["value", *(f"delta_{s}" for s in range(v.n_players(meta["rules"])))]
        check["identical"] = bool(again[cols].equals(sim[cols]))
    return {
        "options": options,
        "n_options": len(keys),
        "all_options": list(keys),
        "deals": len(df),
        "policies": sorted(set(meta["policies"])),
        "exact": exact,
        "check": check,
    }


def _cpu_seconds() -> float:
    """CPU time of this process and its finished children (user + system), in seconds."""
    import resource

    a = resource.getrusage(resource.RUSAGE_SELF)
    b = resource.getrusage(resource.RUSAGE_CHILDREN)
    return a.ru_utime + a.ru_stime + b.ru_utime + b.ru_stime


def _run_sensitivity(names, budgets, main, played, seed, workers, progress) -> dict:
    """Stage 4: each variant's sensitivity screen (the first stage of a two-stage
    design): every payout option's values re-scored from the main run's value-bot
    records (no simulation; first-order, since value bots read payouts), every play
    option's values played by value bots at ``ReportBudget.sensitivity`` deals on the
    report's seed; Benjamini-Hochberg over every screened value of the report controls
    the false-discovery rate at :data:`analysis.sensitivity.SCREEN_Q`
    (:func:`analysis.sensitivity.screen`). The second stage is :func:`_confirm_changes`.
    """
    from engine.runs import rescore as rs

    plans = {n: sens_mod.option_plan(n)[0] for n in names}
    payout = {n: set(rs.payout_keys(n)) for n in names}
    total = sum(
        budgets[n].sensitivity * sum(p["option"] not in payout[n] for p in plans[n]) for n in names
    )
    bar = _Bar(progress, total, "4/5 sensitivity screen")
    out = {}

    def tick(label, deals):
        bar.set_postfix_str(label)
        bar.update(deals)

    try:
        for n in names:
            b = budgets[n].sensitivity
            r = sens_mod.sensitivity(
                n, b, seed=seed, workers=workers, level=LEVEL, base=main[n], reuse=played[n],
                progress=tick, payouts="rescore",
            )  # fmt: skip
            simulated = len(plans[n]) - r["rescored"]
            bar.update(b * (simulated - r["runs"]))  # values reused from the sweeps
            table = r["table"].drop(columns=["p_adj"])
            out[n] = {
                "deals": r["deals"],
                "metrics": list(sens_mod.METRICS),
                "metric_docs": sens_mod.metric_docs(),
                "skill_deals": 0,
                "table": jsonable(table),
                "skipped": r["skipped"],
                "runs": r["runs"],
                "screen": {
                    "q": sens_mod.SCREEN_Q,
                    "simulated": simulated,
                    "deals": r["deals"],
                    "rescored": r["rescored"],
                    "rescore_deals": int(len(main[n])),
                    "exact": bool(table.loc[table["screen"] == "rescored", "exact"].all()),
                    "policies": "value",
                },
            }
    finally:
        bar.close()
    rows = [row for n in names for row in out[n]["table"]]
    sens_mod.screen(rows, q=sens_mod.SCREEN_Q)
    tests = sum(row.get("p") is not None for row in rows)
    for n in names:
        out[n]["screen"]["family"] = tests
    return out


def _skill_match_edges(variant, strong, weak, frames) -> pd.DataFrame:
    """Per-match edge samples of ``strong`` over ``weak`` for :func:`analysis.skill_gain`.

    The hook where a ladder's head-to-head per-match edges plug in. Until then: the
    skill runs of this report (``frames``: the strong policy's place from the dealer ->
    records), one sample per match and seating (the strong player's match result minus
    the weak players' mean); the seatings of a match share its walls, so they are
    clustered by match.
    """
    return seating_match_edges(frames, seating="dealer")


def _skill_gain_entry(edges: pd.DataFrame) -> dict | None:
    """The skill gain per match and the matches to be ahead 95% of the time (JSON-able)."""
    try:
        g = skill_gain(edges, cluster=["run_seed", "match"], level=LEVEL, ahead=0.95)
    except UsageError:
        return None
    row = jsonable(g)[0]
    row["source"] = (
        "the skill runs above: one sample per match and seating (the strong seat's match "
        "result minus the weak seats' mean), the seatings of a match clustered"
    )
    return row


def _variant_section(v, df, meta, budget, sweeps, skill) -> dict:
    s = Summary.from_records(df)
    hist = delta_histogram(s, drop_empty=False)
    hist = _trim_histogram(hist)
    rules = []
    resolved = meta["rules"]
    for o in v.options:
        rules.append(
            {
                "key": o.key,
                "value": resolved[o.key],
                "default": o.default,
                "is_default": resolved[o.key] == o.default,
                "allowed": list(o.allowed),
                "doc": o.doc,
                "rulebook": o.rulebook,
                "anchor": option_anchor(o.key),
            }
        )
    return {
        "name": v.name,
        "long_name": v.long_name,
        "version": v.version,
        "family": v.family,
        "players": s.players,
        "value_unit": v.value_unit,
        "rulebook_section": v.rulebook_section,
        "rules_id": meta["rules_id"],
        "policies": list(meta["policies"]),
        "deals": s.n_deals,
        "wins": s.n_wins,
        "matches": s.match_count,
        "budget": asdict(budget),
        "simplifications": _simplifications(v.doc),
        "rules": rules,
        "pattern_info": [
            {"pattern": p.name, "hanzi": p.hanzi, "big": p.big, "doc": p.doc} for p in v.patterns
        ],
        "patterns": pattern_frequencies(s, level=LEVEL),
        "win_types": win_type_frequencies(s, level=LEVEL),
        "win_type_payouts": payouts_by_win_type(s, level=LEVEL),
        "seats": seat_frequencies(s, level=LEVEL),
        "roles": seat_frequencies(s, by="distance", level=LEVEL),
        "payouts_seat": payouts_by_seat(s, level=LEVEL),
        "payouts_role": payouts_by_role(s, level=LEVEL),
        "fairness": fairness_tests(s, level=LEVEL),
        "dealer_edge": {
            **jsonable(dealer_edge(s, level=LEVEL))[0],
            "unit": v.value_unit,
            "definition": (
                "the dealer's mean result per deal minus the mean result of the non-dealers, "
                f"in {v.value_unit}-based points"
            ),
        },
        "swinginess": swinginess(df, level=LEVEL),
        "risk": _risk_section(v, df),
        "delta_histogram": hist,
        "sweeps": sweeps,
        "skill": skill,
    }


def _risk_section(v, df: pd.DataFrame) -> dict | None:
    """Match risk by role at the variant's stated amounts, and the loss curve's data."""
    t = match_table(df)
    if len(t) < 2:
        return None
    amounts = stated_amounts(v.name, t)
    return {
        "matches": int(len(t)),
        "deals_per_match": float(t["deals"].mean()),
        "amounts": amounts,
        "stated": bool(v.stated_amounts),
        "table": jsonable(match_risk(t, amounts, level=LEVEL)),
        "curve": jsonable(loss_curve(t, level=LEVEL)),
    }


def _trim_histogram(hist: pd.DataFrame) -> pd.DataFrame:
    """Per seat, the bins from the first to the last non-empty finite one."""
    parts = []
    for _, g in hist.groupby("seat", sort=True):
        finite = np.isfinite(g["lo"].to_numpy(float)) & np.isfinite(g["hi"].to_numpy(float))
        g = g[finite]
        nz = np.flatnonzero(g["count"].to_numpy() > 0)
        if nz.size:
            parts.append(g.iloc[nz[0] : nz[-1] + 1])
    if not parts:
        return hist.iloc[:0]
    return pd.concat(parts, ignore_index=True)


def _git_sha() -> str | None:
    if not (REPO_ROOT / ".git").exists():
        return None
    try:
        sha = subprocess.run(
            ["git", "-C", str(REPO_ROOT), "rev-parse", "--short=12", "HEAD"],
            capture_output=True,
            text=True,
            timeout=10,
            check=True,
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "-C", str(REPO_ROOT), "status", "--porcelain", "--untracked-files=no"],
            capture_output=True,
            text=True,
            timeout=10,
            check=True,
        ).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return None
    return f"{sha}+dirty" if dirty else sha


def _numba_version() -> str:
    import numba

    return numba.__version__
