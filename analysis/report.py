"""The balance report: ``mjlab report`` writes HTML, Markdown and JSON.

:func:`build_report` plays every requested variant with its default rules and the
report's bots (:data:`REPORT_POLICY`, ``strong`` where the variant has it), runs the
headline rule sweeps, the skill-vs-luck comparisons and the rule
sensitivity table (:mod:`analysis.sensitivity`), prices the match risk
(:mod:`analysis.risk`), and returns the
*context*: a JSON-able dict holding every number the report shows (and the data of
every figure). :func:`render` turns a context into three files, each written to a
temporary name and renamed when complete:

- ``balance-report.html``: self-contained (inline CSS, figures inline as base64 PNG, no
  script, nothing fetched from the network);
- ``balance-report.md`` with its figures as PNG files in ``balance-report-figures/``;
- ``balance-report.json``: the context itself.

Everything is generic over :func:`engine.variants.names`: the headline sweeps are
declared as data (:data:`HEADLINE_SWEEPS`, the option keys looked up on each variant),
and a sweep whose variant or option is not registered is skipped with a note in the
report. All runs of a report share one seed, so the walls of deal ``(match, deal)``
are the same in the main run, in every sweep value (common random numbers) and in every
seating of the skill comparisons (duplicate format).

Examples
--------
>>> from analysis import report
>>> report.budget_for("tuidaohu", 64)
Budget(main=64, sweep=32, skill=32, sensitivity=32, sensitivity_skill=32)
"""

from __future__ import annotations

import base64
import functools
import hashlib
import io
import json
import math
import os
import platform
import re
import stat
import subprocess
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
import pandas as pd

from analysis import sensitivity as sens_mod
from analysis._util import ROLE_PROSE, jsonable
from analysis.compare import METRICS, compare_variants
from analysis.fairness import MARGIN_SD, dealer_edge, fairness_tests, word_verdicts
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
from analysis.risk import (
    STATED_AMOUNTS,
    loss_curve,
    match_risk,
    match_table,
    seating_match_edges,
    skill_gain,
    stated_amounts,
)
from analysis.skill import duplicate_gain, skill_edge
from analysis.stats import format_pm
from analysis.summary import Summary
from analysis.sweep import metric_doc, sweep_table
from engine.errors import UsageError

__all__ = [
    "Budget",
    "SweepSpec",
    "DEFAULT_SEED",
    "DEFAULT_BUDGETS",
    "FALLBACK_BUDGET",
    "HEADLINE_SWEEPS",
    "SKILL_PAIRS",
    "SWEEP_METRICS",
    "MIN_DEALS",
    "LEVEL",
    "FILES",
    "budget_for",
    "build_report",
    "render",
    "check_out_dir",
    "run_cli",
]

REPO_ROOT = Path(__file__).resolve().parents[1]
"""The repository (or installed tree) root: where the git SHA is read from."""

RULEBOOK_PATH = "../shared/rules/RULEBOOK.md"
"""The RULEBOOK, relative to :data:`REPO_ROOT` (the README's ``Rules:`` line)."""

DEFAULT_SEED = 2026
"""Seed of every run of a report unless told otherwise."""

LEVEL = 0.95
"""Confidence level of every interval in the report."""

ALPHA = 0.05
"""Family-wise error rate of the report: every p-value of the report (fairness tests,
sweep differences, ranking gaps) is Holm-adjusted together, and a finding needs an
adjusted p below it."""

MATCH_LENGTH = 16
"""Deals per match (the engine's default; dealer streaks run across a match)."""

MIN_DEALS = 2 * MATCH_LENGTH
"""Fewest deals a run of the report may have: two matches, the fewest from which a
match-clustered interval (``G - 1`` degrees of freedom) can be computed."""

FILES = ("balance-report.html", "balance-report.md", "balance-report.json")
"""The files :func:`render` writes (plus the figures folder :data:`FIGURES_DIR`)."""

FIGURES_DIR = "balance-report-figures"
"""Folder (beside the Markdown file) of the PNG figures the Markdown links to."""


@dataclass(frozen=True)
class Budget:
    """Deals per run in each stage of one variant's part of the report.

    Attributes
    ----------
    main : int
        The main run: default rules, the report's bots in every seat (and the same deals
        with ``value`` bots, for the bot-sensitivity table and as the sensitivity
        table's base).
    sweep : int
        Each value of a headline sweep (the default value reuses the first ``sweep``
        deals of the main run: same seed, same rules, so the same records).
    skill : int
        Each seating of a skill comparison (strong policy in one seat, one run per
        seat).
    sensitivity : int
        Each value of every rule option in the sensitivity table (the defaults reuse the
        first ``sensitivity`` deals of the main run; a value a headline sweep played
        with at least as many deals reuses that run's first deals).
    sensitivity_skill : int
        Each place of the sensitivity table's skill runs (value over efficiency, one run
        per place from the dealer for every option value; the defaults reuse the skill
        section's value-over-efficiency runs). 0 leaves the skill edge out of the table.
    """

    main: int
    sweep: int
    skill: int
    sensitivity: int = 0
    sensitivity_skill: int = 0


DEFAULT_BUDGETS: dict[str, Budget] = {
    "fuzhou": Budget(
        main=96_000, sweep=48_000, skill=19_200, sensitivity=24_000, sensitivity_skill=4_000
    ),
    "lishui": Budget(
        main=80_000, sweep=32_000, skill=12_800, sensitivity=24_000, sensitivity_skill=4_000
    ),
    "luodisao": Budget(
        main=80_000, sweep=32_000, skill=16_000, sensitivity=24_000, sensitivity_skill=4_000
    ),
    "tuidaohu": Budget(
        main=48_000, sweep=12_800, skill=9_600, sensitivity=24_000, sensitivity_skill=4_000
    ),
    "zhuji": Budget(
        main=48_000, sweep=19_200, skill=6_400, sensitivity=24_000, sensitivity_skill=3_200
    ),
}
"""Embedded defaults of ``mjlab report`` (no ``--deals``), set from the CPU time each stage
measured (1 Dec 2026, 2 cores, numba's cache warm; the main runs and the headline sweeps
play ``strong`` bots, the sensitivity table ``value`` bots). At the budgets before these
(half the main, sweep and skill deals and two thirds of the sensitivity deals) the report
took 223 s of CPU: main runs 58, sweeps 27, skill runs 17, sensitivity table 119 (of which
the skill edge, value over efficiency by place from the dealer at 3,200-4,000 deals per
place, about half), analysis 1.4. These budgets double the main, sweep and skill deals
and raise the sensitivity deals by half, about 390 s of CPU, so that with the first run's
compilation the whole report stays under 10 minutes on 2 cores from an empty cache (the
closing note of issue 20 gives the measured time).

The issue's "about 5x the deals" predates the strong bots, which play at a quarter to a
third of value's speed: at 5x, the main runs alone would take about 5 minutes of CPU."""

FALLBACK_BUDGET = Budget(
    main=24_000, sweep=8_000, skill=4_800, sensitivity=8_000, sensitivity_skill=2_400
)
"""Defaults of a registered variant that :data:`DEFAULT_BUDGETS` does not list."""


def budget_for(variant: str, deals: int | None = None) -> Budget:
    """Deals per run of each stage for ``variant``.

    Parameters
    ----------
    variant : str
    deals : int, optional
        ``--deals N``: the main run plays ``N`` deals, each sweep value, each skill
        seating and each value of the sensitivity table ``N // 2`` (never fewer than
        :data:`MIN_DEALS`). Default: the variant's entry of :data:`DEFAULT_BUDGETS`
        (else :data:`FALLBACK_BUDGET`).

    Returns
    -------
    Budget
    """
    if deals is None:
        return DEFAULT_BUDGETS.get(variant, FALLBACK_BUDGET)
    half = min(deals, max(MIN_DEALS, deals // 2))
    quarter = min(deals, max(MIN_DEALS, deals // 4))
    return Budget(main=deals, sweep=half, skill=half, sensitivity=half, sensitivity_skill=quarter)


@dataclass(frozen=True)
class SweepSpec:
    """A headline sweep, declared as data.

    Attributes
    ----------
    variant : str
        Variant name.
    keys : tuple of str
        Candidate option keys, the first one the variant has is swept.
    title : str
        What is swept, for the reader.
    values : tuple of str, optional
        Values to play (parsed by the option; values it does not allow are left out);
        default every allowed value. The option's default is always included: it is the
        baseline of the paired differences.
    """

    variant: str
    keys: tuple[str, ...]
    title: str
    values: tuple[str, ...] | None = None


HEADLINE_SWEEPS: tuple[SweepSpec, ...] = (
    SweepSpec("lishui", ("caishen",), "财神 (wildcard) count"),
    SweepSpec("zhuji", ("caishen",), "财神 (wildcard) count"),
    SweepSpec("fuzhou", ("jin", "golds"), "金 (gold wildcard) count"),
    SweepSpec("tuidaohu", ("ghost",), "鬼 (ghost wildcard) option"),
    SweepSpec("tuidaohu", ("horses",), "买马 horse count", ("0", "1", "2", "3", "4")),
    SweepSpec("luodisao", ("kings", "wang", "jokers"), "王 (joker) count"),
)
"""The sweeps of the report (RULEBOOK §0 rule 2: every wildcard count is sweepable)."""

SKILL_PAIRS: tuple[tuple[str, str], ...] = (
    ("value", "efficiency"),
    ("efficiency", "random"),
    ("strong", "value"),
)
"""(strong, weak) policy pairs of the skill-vs-luck comparisons, the ladder's rungs (a
variant plays those whose policies it has); the first is the one the cross-variant panel
quotes (value over efficiency: the rung every variant has and the earlier reports used)."""

SWEEP_METRICS: tuple[str, ...] = (
    "draw_rate",
    "turns",
    "value_per_win",
    "flow",
    "dealer_edge",
    "big_hand_per_win",
)
"""Metrics of :func:`analysis.sweep_metrics` that the report tabulates per sweep
(:data:`analysis.sweep.METRIC_DOCS` defines each in words)."""

SWEEP_FIGURE_METRICS: tuple[str, ...] = SWEEP_METRICS
"""The panels of each sweep figure: every metric tabulated."""

REPORT_POLICY = "strong"
"""The policy of the report's main runs and headline sweeps, where a variant has it
(else ``value``). Every headline is also played with ``value`` bots on the same deals:
the bot-sensitivity table says how much each one depends on the bot."""


def report_policy(variant) -> str:
    """The policy a variant's main runs and headline sweeps play in the report."""
    return REPORT_POLICY if REPORT_POLICY in variant.policies else "value"


BOT_METRICS: tuple[str, ...] = ("dealer_edge", "draw_rate", "flow", "value_per_win")
"""Headlines of the bot-sensitivity table (main run under each bot, paired by deal)."""

POLICY_DOCS = {
    "strong": (
        "plays each discard for expected points: the chance to win from each target's and "
        "the plain hand's distance, ukeire and the live tiles (tables fitted from the "
        "engine's own play) times what each win brings under the variant's scoring, "
        "against a fitted per-opponent danger of feeding a win times what feeding costs; "
        "claims and kongs by the value after them; weights tuned by self-play against "
        "value (each variant's docstring says what it does and does not do)"
    ),
    "value": (
        "discards to minimise the tiles still needed, then to maximise winning draws "
        "(ukeire), weighing the hand's value under the variant's scoring; keeps wild "
        "tiles; claims when a claim brings it closer; declares every legal win"
    ),
    "efficiency": ("the same without the value term: fewest tiles needed, then most winning draws"),
    "random": "a uniformly random legal action (declares every legal win)",
}
"""What each bot policy does (DESIGN: bots good enough to trust)."""

SENSES = (
    ("dealer_edge_sd", "between the dealer and the other seats", "abs", "SD"),
    ("skill_snr", "in rewarding skill", "high", ""),
)
"""Senses of "fair" the summary ranks the variants by: metric of
:func:`analysis.compare_variants`, the sense in words, which end is fairer (``abs``:
closest to 0, ``low``, ``high``) and the unit of a gap (per-deal SDs, none, a share).
The spread between absolute seats is not ranked: seats are interchangeable by
construction, so it is an engine sanity check (the seat tests of each variant).
Swinginess (the top-1% share) stays in the panel but is not ranked: over repeated seeds
its interval covers the truth only 84-87% of the time at 1,600-8,000 deals (rare big
deals make the share converge slowly), below the 95% a ranking needs."""


# ----------------------------------------------------------------------------- inputs
def _resolve_variants(variants) -> list[str]:
    from engine import variants as registry

    if variants is None:
        names = registry.names()
    else:
        if isinstance(variants, str):
            variants = variants.split(",")
        names = []
        for raw in variants:
            name = str(raw).strip()
            if not name:
                continue
            registry.get(name)  # UsageError naming the known variants
            if name not in names:
                names.append(name)
    if not names:
        raise UsageError("--variants: name at least one variant (see `mjlab variants`)")
    return names


def _check_deals(deals) -> None:
    if deals is None:
        return
    if isinstance(deals, bool) or not isinstance(deals, int | np.integer):
        raise UsageError(f"--deals must be an integer, got {deals!r}")
    if deals < MIN_DEALS:
        raise UsageError(
            f"--deals {deals} is too few: intervals need at least two matches of "
            f"{MATCH_LENGTH} deals (--deals >= {MIN_DEALS})"
        )


def check_out_dir(out_dir) -> Path:
    """Check that ``out_dir`` is (or can be created as) a writable folder.

    Nothing is created (engine.fileio.check_writable probes with a file it removes).
    Raises :class:`~engine.errors.UsageError` naming the problem.

    Returns
    -------
    Path
    """
    from engine import fileio

    fileio.check_writable(out_dir, "--out")
    return Path(out_dir)


# ----------------------------------------------------------------------------- plans
def _plan_sweeps(names: Sequence[str], all_variants: bool) -> tuple[list[dict], list[dict]]:
    """Sweeps to run and sweeps skipped (with the reason), from :data:`HEADLINE_SWEEPS`."""
    from engine import variants as registry

    registered = set(registry.names())
    plans, skipped = [], []
    for spec in HEADLINE_SWEEPS:
        if spec.variant not in names:
            if all_variants and spec.variant not in registered:
                skipped.append(
                    {
                        "variant": spec.variant,
                        "what": f"{spec.title} sweep",
                        "reason": f"variant {spec.variant} is not registered in this build",
                    }
                )
            continue
        v = registry.get(spec.variant)
        key = next((k for k in spec.keys if k in v.option_map), None)
        if key is None:
            skipped.append(
                {
                    "variant": spec.variant,
                    "what": f"{spec.title} sweep",
                    "reason": f"{spec.variant} has no option {' / '.join(spec.keys)}",
                }
            )
            continue
        opt = v.option_map[key]
        values = []
        for raw in opt.allowed if spec.values is None else spec.values:
            try:
                val = opt.parse(raw)
            except UsageError:
                continue
            if val not in values:
                values.append(val)
        if opt.default not in values:
            values.insert(0, opt.default)
        if len(values) < 2:
            skipped.append(
                {
                    "variant": spec.variant,
                    "what": f"{spec.title} sweep",
                    "reason": f"option {key} allows fewer than two of the values to sweep",
                }
            )
            continue
        plans.append(
            {"variant": spec.variant, "option": key, "title": spec.title, "values": values}
        )
    return plans, skipped


def _skill_pairs(variant) -> list[tuple[str, str]]:
    return [p for p in SKILL_PAIRS if p[0] in variant.policies and p[1] in variant.policies]


class _Bar:
    """A tqdm bar per stage, or nothing."""

    def __init__(self, enabled: bool, total: int, desc: str, unit: str = "deal"):
        self.bar = None
        if enabled and total > 0:
            from tqdm import tqdm

            self.bar = tqdm(total=total, desc=desc, unit=unit, unit_scale=True)

    def update(self, n: int) -> None:
        if self.bar is not None:
            self.bar.update(n)

    def set_postfix_str(self, s: str) -> None:
        if self.bar is not None:
            self.bar.set_postfix_str(s, refresh=True)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


# ----------------------------------------------------------------------------- build
def build_report(
    variants: Sequence[str] | str | None = None,
    deals: int | None = None,
    seed: int = DEFAULT_SEED,
    workers: int | None = None,
    progress: bool = True,
) -> dict:
    """Simulate, analyse and collect every number of the balance report.

    Parameters
    ----------
    variants : sequence of str or str, optional
        Variant names (or ``"a,b"``); default every registered variant.
    deals : int, optional
        Deals of each main run (see :func:`budget_for`); default the per-variant
        :data:`DEFAULT_BUDGETS`. At least :data:`MIN_DEALS`.
    seed : int
        The seed of every run.
    workers : int, optional
        Threads per run (default: all cores).
    progress : bool
        Show a tqdm progress bar per stage (on stderr).

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
    from engine import __version__
    from engine import variants as registry
    from engine.run import simulate

    t_start, c_start = time.perf_counter(), _cpu_seconds()
    all_variants = variants is None
    names = _resolve_variants(variants)
    _check_deals(deals)
    if isinstance(seed, bool) or not isinstance(seed, int | np.integer) or seed < 0:
        raise UsageError(f"--seed must be an integer >= 0, got {seed!r}")
    if workers is not None and workers < 1:
        raise UsageError(f"--workers must be >= 1, got {workers}")
    seed = int(seed)
    budgets = {n: budget_for(n, deals) for n in names}
    plans, skipped = _plan_sweeps(names, all_variants)
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
    timing: dict[str, float] = {}

    def run(name, n, rules=None, policies=None, seating="seat"):
        if policies is None:
            policies = report_policy(vobj[name])
        r = simulate(
            name,
            n,
            seed=seed,
            rules=rules,
            policies=policies,
            match_length=MATCH_LENGTH,
            workers=workers,
            progress=False,
            seating=seating,
        )
        return r

    # 1. main runs
    t0, c0 = time.perf_counter(), _cpu_seconds()
    bots = {n: report_policy(vobj[n]) for n in names}
    total = sum(b.main * (2 if bots[n] != "value" else 1) for n, b in budgets.items())
    bar = _Bar(progress, total, "1/5 main runs")
    main: dict[str, pd.DataFrame] = {}
    main_value: dict[str, pd.DataFrame] = {}  # the same deals with value bots
    runs_meta: dict[str, dict] = {}
    try:
        for n in names:
            bar.set_postfix_str(f"{n} {bots[n]}")
            r = run(n, budgets[n].main)
            main[n] = r.to_pandas()
            runs_meta[n] = {"rules": r.rules, "rules_id": r.rules_id, "policies": r.policies}
            bar.update(budgets[n].main)
            if bots[n] != "value":
                bar.set_postfix_str(f"{n} value")
                main_value[n] = run(n, budgets[n].main, policies="value").to_pandas()
                bar.update(budgets[n].main)
            else:
                main_value[n] = main[n]
    finally:
        bar.close()
    timing["main"] = time.perf_counter() - t0
    timing["main_cpu"] = _cpu_seconds() - c0

    # 2. sweeps (common random numbers: the same seed under every value)
    t0, c0 = time.perf_counter(), _cpu_seconds()
    total = sum(budgets[p["variant"]].sweep * (len(p["values"]) - 1) for p in plans)
    bar = _Bar(progress, total, "2/5 sweeps")
    sweeps: dict[str, list[dict]] = {n: [] for n in names}
    played: dict[str, dict] = {n: {} for n in names}  # (option, value) -> records, for reuse
    try:
        for p in plans:
            name, key = p["variant"], p["option"]
            v = vobj[name]
            b = budgets[name]
            default = v.option_map[key].default
            frames = {}
            rules_ids = {}
            for val in p["values"]:
                bar.set_postfix_str(f"{name} {key}={val}")
                if val == default:
                    frames[val] = main[name].iloc[: b.sweep].reset_index(drop=True)
                    rules_ids[val] = runs_meta[name]["rules_id"]
                    continue
                r = run(name, b.sweep, rules={key: val})
                frames[val] = r.to_pandas()
                played[name][(key, val)] = frames[val]
                rules_ids[val] = r.rules_id
                bar.update(b.sweep)
            big = [pp.name for pp in v.patterns if pp.big]
            metrics = [m for m in SWEEP_METRICS if m != "big_hand_per_win" or big]
            paired = not v.option_map[key].changes_deal
            table = sweep_table(
                frames,
                option=key,
                baseline=default,
                metrics=metrics,
                big=big or None,
                level=LEVEL,
                paired=paired,
            )
            sweeps[name].append(
                {
                    "option": key,
                    "title": p["title"],
                    "values": p["values"],
                    "baseline": default,
                    "paired": paired,
                    "metric_docs": [{"metric": m, "doc": metric_doc(m)} for m in metrics],
                    "deals": b.sweep,
                    "rules_ids": [{"value": k, "rules_id": i} for k, i in rules_ids.items()],
                    "doc": v.option_map[key].doc,
                    "rulebook": v.option_map[key].rulebook,
                    "table": jsonable(table),
                }
            )
    finally:
        bar.close()
    timing["sweeps"] = time.perf_counter() - t0
    timing["sweeps_cpu"] = _cpu_seconds() - c0

    # 3. skill vs luck, duplicate seating: the strong policy in each place from the dealer
    t0, c0 = time.perf_counter(), _cpu_seconds()
    total = 0
    for n in names:
        seats = vobj[n].n_players(runs_meta[n]["rules"])
        total += budgets[n].skill * seats * len(_skill_pairs(vobj[n]))
    bar = _Bar(progress, total, "3/5 skill vs luck")
    skill: dict[str, list[dict]] = {n: [] for n in names}
    skill_frames: dict[str, dict] = {}  # value over efficiency: the sensitivity defaults
    try:
        for n in names:
            v = vobj[n]
            seats = v.n_players(runs_meta[n]["rules"])
            for strong, weak in _skill_pairs(v):
                bar.set_postfix_str(f"{n} {strong} vs {weak}")
                # one rung of the ladder (analysis.ladder): one run per place from the dealer
                frames = rung_frames(
                    v, runs_meta[n]["rules"], strong, weak, budgets[n].skill, seed,
                    workers=workers, match_length=MATCH_LENGTH, bar=bar,
                )  # fmt: skip
                if (strong, weak) == sens_mod.SKILL_PAIR:
                    skill_frames[n] = frames
                table = skill_edge(frames, seating="dealer", level=LEVEL)
                table = table.set_index("format", drop=False)
                edges = _skill_match_edges(n, strong, weak, frames)
                gain = duplicate_gain(table)
                skill[n].append(
                    {
                        "strong": strong,
                        "weak": weak,
                        "seatings": seats,
                        "deals_per_seating": budgets[n].skill,
                        "duplicate_gain": gain,
                        "rung": jsonable(pd.DataFrame([rung_row(frames, strong, weak, LEVEL)]))[0],
                        "table": jsonable(table.reset_index(drop=True)),
                        "gain": _skill_gain_entry(edges),
                    }
                )
    finally:
        bar.close()
    timing["skill"] = time.perf_counter() - t0
    timing["skill_cpu"] = _cpu_seconds() - c0

    # 4. sensitivity: every non-default value of every rule option against the defaults
    t0, c0 = time.perf_counter(), _cpu_seconds()
    # the table plays value bots (cheaper); the headline sweeps' runs are reused only
    # where they played value too
    reuse = {n: (played[n] if bots[n] == "value" else {}) for n in names}
    sens = _run_sensitivity(
        names, budgets, main_value, reuse, seed, workers, progress, skill_frames
    )
    timing["sensitivity"] = time.perf_counter() - t0
    timing["sensitivity_cpu"] = _cpu_seconds() - c0

    # 4. analysis of the main runs and the cross-variant panel
    t0, c0 = time.perf_counter(), _cpu_seconds()
    bar = _Bar(progress, len(names), "5/5 analysis", unit="variant")
    sections = {}
    try:
        for n in names:
            bar.set_postfix_str(n)
            sections[n] = _variant_section(
                vobj[n], main[n], runs_meta[n], budgets[n], sweeps[n], skill[n]
            )
            sections[n]["sensitivity"] = sens[n]
            sections[n]["bots"] = _bot_sensitivity(
                vobj[n], bots[n], main[n], main_value[n], sections[n]["sweeps"], sens[n]
            )
            bar.update(1)
        panel = compare_variants(
            {n: main[n] for n in names},
            big={n: [p.name for p in vobj[n].patterns if p.big] for n in names},
            skill={n: pd.DataFrame(skill[n][0]["table"]) for n in names if skill[n]},
            level=LEVEL,
        )
    finally:
        bar.close()
    timing["analysis"] = time.perf_counter() - t0
    timing["analysis_cpu"] = _cpu_seconds() - c0
    panel_rows = jsonable(panel)
    long_names = {n: vobj[n].long_name for n in names}
    edges = {n: sections[n]["dealer_edge"] for n in names}
    senses = _rank(panel_rows, long_names, edges)
    family = _adjust_report(sections, senses)
    summary = _word_summary(senses, long_names, family)
    summary["recommendations"] = _sensitivity_words(sections, family)
    timing["total"] = time.perf_counter() - t_start
    timing["total_cpu"] = _cpu_seconds() - c_start

    rulebook = _rulebook_info()
    ctx = {
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
            "seed": seed,
            "deals_option": deals,
            "budgets": {n: asdict(budgets[n]) for n in names},
            "default_budgets": {n: asdict(b) for n, b in DEFAULT_BUDGETS.items()},
            "fallback_budget": asdict(FALLBACK_BUDGET),
            "match_length": MATCH_LENGTH,
            "min_deals": MIN_DEALS,
            "workers": workers,
            "level": LEVEL,
            "policy": REPORT_POLICY,
            "policies": bots,
            "skill_pairs": [list(p) for p in SKILL_PAIRS],
        },
        "summary": summary,
        "panel": panel_rows,
        "panel_metrics": [{"metric": k, "unit": u} for k, u in METRICS.items()],
        "variants": sections,
        "skipped": skipped,
        "methods": _methods(),
        "caveats": _caveats(rulebook),
        "rulebook": rulebook,
    }
    return jsonable(ctx)


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
        vt[(row["option"], str(row["option_value"]), row["metric"])] = row
    effects = []
    for sw in sweeps:
        for row in sw["table"]:
            if row.get("is_baseline") or row["metric"] not in BOT_METRICS:
                continue
            other = vt.get((sw["option"], str(row["option_value"]), row["metric"]))
            if other is None:  # a metric or value the sensitivity table does not hold
                continue
            effects.append(
                {
                    "option": sw["option"],
                    "option_value": row["option_value"],
                    "metric": row["metric"],
                    "strong": row.get("diff"),
                    "strong_lo": row.get("diff_lo"),
                    "strong_hi": row.get("diff_hi"),
                    "value": other.get("diff"),
                    "value_lo": other.get("diff_lo"),
                    "value_hi": other.get("diff_hi"),
                }
            )
    return {
        "policy": policy,
        "deals": int(len(strong)),
        "table": jsonable(table),
        "metric_docs": [{"metric": m, "doc": metric_doc(m)} for m in BOT_METRICS],
        "sweep_effects": effects,
    }


def _cpu_seconds() -> float:
    """CPU time of this process and its finished children (user + system), in seconds."""
    import resource

    a = resource.getrusage(resource.RUSAGE_SELF)
    b = resource.getrusage(resource.RUSAGE_CHILDREN)
    return a.ru_utime + a.ru_stime + b.ru_utime + b.ru_stime


def _run_sensitivity(names, budgets, main, played, seed, workers, progress, skill) -> dict:
    """Each variant's sensitivity table (p unadjusted: the report adjusts them all)."""
    from analysis import sensitivity as sens

    plans = {n: sens.option_plan(n)[0] for n in names}
    total = sum(budgets[n].sensitivity * len(plans[n]) for n in names)
    for n in names:
        b = budgets[n].sensitivity_skill
        if b:
            from engine.variants import get

            v = get(n)
            places = sum(v.n_players(v.resolve({p["option"]: p["value"]})) for p in plans[n])
            reused = n in skill and all(len(f) >= b for f in skill[n].values())
            total += b * (places + (0 if reused else v.n_players(v.resolve(None))))
    bar = _Bar(progress, total, "4/5 sensitivity")
    out = {}

    def tick(label, deals):
        bar.set_postfix_str(label)
        bar.update(deals)

    try:
        for n in names:
            b = budgets[n].sensitivity
            r = sens.sensitivity(
                n,
                b,
                seed=seed,
                workers=workers,
                level=LEVEL,
                base=main[n],
                reuse=played[n],
                progress=tick,
                skill_deals=budgets[n].sensitivity_skill,
                skill_base=skill.get(n),
            )
            bar.update(b * (len(plans[n]) - r["runs"]))  # values reused from the sweeps
            table = r["table"].drop(columns=["p_adj"])
            out[n] = {
                "deals": r["deals"],
                "metrics": list(sens.METRICS) + ([sens.SKILL_METRIC] if r["skill_deals"] else []),
                "metric_docs": sens.metric_docs(skill=bool(r["skill_deals"])),
                "skill_deals": r["skill_deals"],
                "table": jsonable(table),
                "skipped": r["skipped"],
                "runs": r["runs"],
            }
    finally:
        bar.close()
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


def _sensitivity_words(sections: dict, family: str) -> dict:
    """Per variant: the ranking and the recommendations, from the adjusted p-values."""
    from analysis import sensitivity as sens

    out = {}
    for name, sec in sections.items():
        sv = sec.get("sensitivity")
        if not sv:
            continue
        edge = sec["dealer_edge"]
        words = sens.recommendations(
            sv["table"],
            name=sec["long_name"].split(" ")[0],
            unit=sec["value_unit"],
            edge={"edge": edge["edge"], "lo": edge["lo"], "hi": edge["hi"], "n": sec["deals"]},
            alpha=ALPHA,
            deals=sv["deals"],
            family=family,
        )
        sv["recommendations"] = words
        sv["ranking"] = jsonable(sens.ranking(sv["table"], alpha=ALPHA))
        out[name] = words
    return out


_EXPECTED = ("fuzhou", "lishui", "luodisao", "tuidaohu", "zhuji")
"""The five variants of DESIGN.md; the report notes the ones not registered yet."""


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
                "anchor": _anchor(o.rulebook),
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
        "rulebook_anchor": _anchor(v.rulebook_section),
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
        "stated": v.name in STATED_AMOUNTS,
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


# ----------------------------------------------------------------------------- multiplicity
def _adjust_report(sections: dict, senses: list) -> str:
    """Holm-adjust every p-value of the report together; return the family in words.

    The family: every fairness test of every variant, every difference of every sweep
    from its baseline, every difference of the sensitivity tables and every ranking gap
    of the summary. ``p_adj`` (and ``reject``,
    and each fairness verdict) are rewritten in place with the report-wide adjustment.
    """
    from analysis.stats import adjust_pvalues

    slots: list[tuple[object, object]] = []  # (container, key) whose "p" joins the family
    for sec in sections.values():
        ft = sec["fairness"]
        for i in range(len(ft)):
            slots.append((ft, i))
        for sw in sec["sweeps"]:
            for row in sw["table"]:
                if row.get("p") is not None:
                    slots.append((row, None))
        for row in (sec.get("sensitivity") or {}).get("table", []):
            if row.get("p") is not None:
                slots.append((row, None))
        for row in (sec.get("bots") or {}).get("table", []):
            if row.get("p") is not None:
                slots.append((row, None))
    for item in senses:
        for g in item["adjacent"]:
            slots.append((g, None))
        if "span_test" in item:
            slots.append((item["span_test"], None))

    def raw(slot):
        c, i = slot
        v = c["p"].iloc[i] if i is not None else c.get("p")
        return math.nan if v is None else float(v)

    ps = np.array([raw(x) for x in slots], dtype=float)
    n = int(np.isfinite(ps).sum())
    adj = adjust_pvalues(ps, "holm")
    family = f"the {n} tests of this report"
    for (c, i), a in zip(slots, adj, strict=True):
        a = None if not math.isfinite(a) else float(a)
        if i is None:
            c["p_adj"] = a
            if "adjust" in c:
                c["adjust"] = "holm"
        else:
            c.loc[c.index[i], "p_adj"] = math.nan if a is None else a
    for sec in sections.values():
        ft = sec["fairness"]
        ft["adjust"] = "holm"
        ft["family"] = n
        ft["reject"] = np.nan_to_num(ft["p_adj"].to_numpy(dtype=float), nan=1.0) < ALPHA
        sec["fairness"] = word_verdicts(ft, sec["players"], family)
    return family


# ----------------------------------------------------------------------------- summary
def _half(row: dict) -> float:
    lo, hi = row.get("lo"), row.get("hi")
    if lo is None or hi is None:
        return math.nan
    return (hi - lo) / 2


def _fmt(x: float, half: float, *, percent: bool = False) -> str:
    if math.isfinite(half):
        return format_pm(x, half, percent=percent)
    return f"{100 * x:.3g}%" if percent else f"{x:.3g}"


def _short(name: str, long_names: dict[str, str]) -> str:
    """``"广东推倒胡 (tuidaohu)"`` from the long name's first word and the registry name."""
    first = long_names.get(name, name).split(" ")[0]
    return name if first in ("", name) else f"{first} ({name})"


def _value(e: dict, *, sign: float = 1.0, percent: bool = False) -> str:
    """``estimate ± half`` when the interval is symmetric, else ``estimate [lo, hi]``."""
    x, lo, hi = e["estimate"], e.get("lo"), e.get("hi")
    if lo is None or hi is None:
        return _fmt(sign * x, math.nan, percent=percent)
    if abs((hi - x) - (x - lo)) <= 0.1 * (hi - lo):
        return _fmt(sign * x, (hi - lo) / 2, percent=percent)
    lo, hi = sorted((sign * lo, sign * hi))
    text = _fmt(sign * x, (hi - lo) / 2, percent=percent).split(" ± ")[0]
    scale, unit = (100.0, "%") if percent else (1.0, "")
    digits = len(text.rstrip("%").split(".")[1]) if "." in text else 0
    return f"{text} [{scale * lo:.{digits}f}{unit}, {scale * hi:.{digits}f}{unit}]"


def _phrase(metric: str, e: dict, edges: dict | None = None) -> str:
    """The plain-words reading of one variant's value of a :data:`SENSES` metric."""
    x = e["estimate"]
    sign = 1.0 if x >= 0 else -1.0
    verb = "gains" if x >= 0 else "loses"
    if metric == "dealer_edge_sd":
        text = (
            f"the dealer {verb} {_value(e, sign=sign)} SD (SD units) per deal against an "
            "average non-dealer"
        )
        pts = (edges or {}).get(e.get("label", e.get("variant")))
        if pts and pts.get("edge") is not None:
            text += (
                f", a dealer edge of {_value({**pts, 'estimate': pts['edge']})} points per "
                f"deal in {pts['unit']}"
            )
        return text
    if metric == "skill_snr":
        from scipy.stats import norm

        strong, weak = SKILL_PAIRS[0]
        text = (
            f"a {strong} bot among {weak} bots {verb} {_value(e, sign=sign)} SD of a match "
            "total per match"
        )
        if x > 0:
            k = math.ceil((float(norm.ppf(0.95)) / x) ** 2)
            text += f", enough to be ahead after about {k:,} matches 95% of the time"
        return text
    if metric == "swinginess":
        return (
            f"the biggest 1% of deals carry {_value(e, percent=True)} of the points that "
            "change hands"
        )
    return f"{metric} = {_value(e)}"


def _gap(a: dict, b: dict, score) -> dict:
    """The gap ``score(b) - score(a)`` with its interval and a two-sided normal p-value."""
    from scipy.stats import norm

    d = score(b) - score(a)
    h = math.hypot(_half(a), _half(b))
    if not math.isfinite(h) or h <= 0:
        return {"gap": d, "gap_lo": None, "gap_hi": None, "p": None}
    se = h / float(norm.ppf(0.5 + LEVEL / 2))
    return {"gap": d, "gap_lo": d - h, "gap_hi": d + h, "p": float(2 * norm.sf(abs(d) / se))}


def _rank(panel: list[dict], long_names: dict[str, str], edges: dict | None = None) -> list:
    """Each sense of :data:`SENSES`: the variants sorted, with the raw p of every gap.

    The gaps tested are those between neighbours in the sorted order (``adjacent``)
    and between the first and the last (``span``); :func:`_word_summary` claims an
    order only where a gap is resolved after the report's multiplicity adjustment.
    """
    senses = []
    for metric, sense, better, gap_unit in SENSES:
        rows = [r for r in panel if r["metric"] == metric and r["estimate"] is not None]
        if not rows:
            continue

        def score(r, better=better):
            e = r["estimate"]
            return abs(e) if better == "abs" else (-e if better == "high" else e)

        ranked = sorted(rows, key=score)
        entries = [
            {
                "variant": r["label"],
                "estimate": r["estimate"],
                "lo": r["lo"],
                "hi": r["hi"],
                "phrase": _phrase(metric, r, edges),
            }
            for r in ranked
        ]
        item = {
            "metric": metric,
            "sense": sense,
            "better": better,
            "unit": METRICS[metric],
            "gap_unit": gap_unit,
            "ranking": entries,
            "adjacent": [_gap(ranked[k], ranked[k + 1], score) for k in range(len(ranked) - 1)],
        }
        if len(ranked) > 1:
            g = item["adjacent"][0]
            item.update({k: g[k] for k in ("gap", "gap_lo", "gap_hi")})
        if len(ranked) > 2:
            sp = _gap(ranked[0], ranked[-1], score)
            item["span_test"] = sp
            item.update({"span": sp["gap"], "span_lo": sp["gap_lo"], "span_hi": sp["gap_hi"]})
        senses.append(item)
    return senses


def _word_summary(senses: list, long_names: dict[str, str], family: str) -> dict:
    """Ranks with ties, the sentences and the headline, from gaps already adjusted."""
    for item in senses:
        rank = 1
        for k, e in enumerate(item["ranking"]):
            if k and _resolved(item["adjacent"][k - 1]):
                rank = k + 1
            e["rank"] = rank
        top = [e for e in item["ranking"] if e["rank"] == 1]
        item["best"] = top[0]["variant"] if len(top) == 1 else None
        item["tied_best"] = [e["variant"] for e in top]
        item["worst"] = item["ranking"][-1]["variant"]
        if item["adjacent"]:
            item["gap_resolved"] = _resolved(item["adjacent"][0])
        if "span_test" in item:
            item["span_resolved"] = _resolved(item["span_test"])
        item["sentence"] = _sense_sentence(item, long_names, family)
    first = senses[0] if senses else None
    return {
        "senses": senses,
        "headline": first["sentence"] if first else "No variant was analysed.",
        "fairest": first["best"] if first else None,
        "fairest_tied": first["tied_best"] if first else [],
        "family": family,
        "intro": (
            "Fair here first means that no seat expects to gain from where it sits; the "
            "dealer is the one position the rules treat differently, so the dealer's edge "
            "is the headline. The dealer edge is the dealer's mean result per deal minus the "
            "mean result of the non-dealers, in the variant's own points; to compare variants "
            "that score in different units (倍, 台, 番, 分, 囤) it is also given in SD units, "
            "divided by the variant's per-deal standard deviation (SD) of a seat's result. "
            "Every number has its 95% interval. A ranking claims an order only where the gap "
            "between two neighbours is resolved: its p-value, Holm-adjusted over "
            f"{family}, is below 0.05; otherwise the variants are tied."
        ),
    }


def _resolved(g: dict) -> bool:
    return g.get("p_adj") is not None and g["p_adj"] < ALPHA


def _gap_text(g: dict, item: dict) -> str:
    d, lo, hi = g["gap"], g["gap_lo"], g["gap_hi"]
    h = (hi - lo) / 2 if lo is not None and hi is not None else math.nan
    pct = item["gap_unit"] == "share"
    unit = {"SD": " SD", "": "", "share": ""}[item["gap_unit"]]
    p = g.get("p_adj")
    ptxt = f"Holm-adjusted p = {p:.2g}" if p is not None else "no interval"
    verdict = "a resolved difference" if _resolved(g) else "not resolved, so tied"
    return f"{_fmt(d, h, percent=pct)}{unit}, {verdict} ({ptxt})"


def _sense_sentence(item: dict, long_names: dict[str, str], family: str) -> str:
    e = item["ranking"]
    top = [x for x in e if x["rank"] == 1]
    lead = "Rewarding skill most" if item["metric"] == "skill_snr" else f"Fairest {item['sense']}"
    if len(e) == 1:
        only = _short(e[0]["variant"], long_names)
        return f"{lead}: {only}, where {e[0]['phrase']}. (The only variant in this report.)"
    if len(top) == 1:
        text = (
            f"{lead}: {_short(e[0]['variant'], long_names)}, where {e[0]['phrase']}. Next is "
            f"{_short(e[1]['variant'], long_names)}, where {e[1]['phrase']}; the gap is "
            f"{_gap_text(item['adjacent'][0], item)}."
        )
    else:
        parts = [f"{_short(x['variant'], long_names)}, where {x['phrase']}" for x in top]
        names = "; ".join(parts[:-1]) + f"; and {parts[-1]}"
        text = (
            f"{lead}: tied between {names}; no order among them is resolved (the first "
            f"gap is {_gap_text(item['adjacent'][0], item)})."
        )
    if len(e) > len(top) and len(e) > 2 and "span_test" in item:
        last = e[-1]
        text += (
            f" Last is {_short(last['variant'], long_names)}, where {last['phrase']}; it "
            f"trails the first by {_gap_text(item['span_test'], item)}."
        )
    return text


# ----------------------------------------------------------------------------- methods
def _methods() -> dict:
    return {
        "policies": [{"policy": k, "doc": d} for k, d in POLICY_DOCS.items()],
        "intervals": [
            "Rates (patterns, win types, wins by seat): Wilson score intervals, deals as units.",
            "Mean results by seat and role: t intervals with match-clustered standard "
            "errors (the deals of a match share a dealer and its streak, so the match is "
            "the independent unit).",
            "Fairness tests: Rao-Scott corrected chi-square of the winners' seats, "
            "cluster-robust Hotelling-type T² of the mean results by seat and by role, a t "
            "test of the dealer edge, and two one-sided t tests (TOST) that the dealer edge "
            f"lies within a practical margin of ±{MARGIN_SD:g} SD of a seat's result per "
            "deal (a rejection reads 'fair within ±ε'). The two seat tests are engine "
            "sanity checks: the first dealer of every match is drawn at random, so the "
            "absolute seats are interchangeable by construction and these nulls hold; they "
            "are expected to pass and are never reported as findings.",
            "Multiplicity: every p-value of this report (the fairness tests of every "
            "variant, every sweep difference from its baseline, every difference of the "
            "sensitivity tables and every ranking gap of the summary) is Holm-adjusted as "
            "one family, so the chance of any false finding in "
            f"the whole report is at most {ALPHA:g}; 'adjusted p' always means this "
            "report-wide Holm adjustment.",
            "Dealer edge: the dealer's mean result per deal minus the mean result of the "
            "non-dealers, in the variant's points (a deal's results sum to 0, so it is the "
            "dealer's mean × P / (P - 1)); the cross-variant version divides it by the "
            "variant's per-deal SD of a seat's result and says 'SD units'. The sweeps' "
            "dealer_edge metric is the same quantity.",
            "Sweeps: the baseline is the option's default value, always played. Every value "
            "plays the same seeds (common random numbers: the same shuffles), so for an "
            "option that leaves the cards dealt unchanged, differences from the baseline are "
            "paired deal by deal; an option that changes the deck (the number of 王, the "
            "number of players) deals different cards from the same seed, so its differences "
            "are unpaired (two independent samples) and labelled so. Normal intervals with "
            "matches as units; the unpaired interval of two independent runs is shown beside "
            "a paired one.",
            "Skill vs luck: the strong policy in one place against the weak one in the "
            "others, a place counted from each deal's dealer (so it keeps its role when the "
            "dealer moves); duplicate seating replays the same walls with the strong policy "
            "in each place in turn and averages a match over its seatings, so the luck of "
            "the tiles largely cancels; single seating counts each match in one seating "
            "only (match i in seating i mod P), the independent matches ordinary play "
            "would give; the duplicate gain is the ratio of deals the two formats need for "
            "the same precision. "
            "Ratio estimator with a t interval over matches; signal-to-noise = mean gain "
            "per match / SD of a match total in ordinary play.",
            "Skill gain per match: the strong seat's match result minus the weak seats' "
            "mean, one sample per match and seating of the skill runs, its mean with a t "
            "interval whose units are the matches (the seatings of a match share its walls); "
            "the matches to be ahead 95% of the time are the smallest n with "
            "Φ(√n·mean/SD) ≥ 0.95, the normal approximation with the measured mean and the "
            "SD of one sample, its interval from the ends of the mean's interval (the SD held "
            "at its estimate).",
            "Match risk: a seat's match result is the sum of its results over the match; "
            "its role is its place relative to the match's first dealer. Matches are "
            "independent, so each role's mean has a t interval over matches, its quantiles "
            "distribution-free order-statistic intervals and its chance of losing more than "
            "an amount a Wilson interval; for a seat at random (pooled over the seats of a "
            "match, which are dependent) the quantiles have a bootstrap interval over "
            "matches and the chance a Wilson interval at the match-clustered effective "
            "sample size. The stated amounts are round numbers near 1, 2 and 4 SDs of a "
            "match result under the default rules, fixed per variant.",
            "Sensitivity: every non-default value of every rule option, one at a time with "
            "the others at their defaults, played on the same seed as the defaults and "
            "compared with the first deals of the main run as a sweep (paired deal by deal "
            "unless the option changes the cards dealt); a value that leaves every deal's "
            "result unchanged is called inert and has no test. A recommendation names only "
            "resolved dealer-edge differences (report-wide Holm); it calls a change fairer "
            "when the new dealer edge's estimate is closer to 0. The skill edge (value "
            "over efficiency) plays every value in duplicate seating by place from the "
            "dealer, one run per place, and is compared with the defaults' skill runs match "
            "by match on the same walls (a ratio estimator with matches as units; unpaired "
            "when the option changes the cards dealt).",
            "Cross-variant panel: payout effects divided by the variant's pooled per-deal "
            "SD of a seat's result (SD units); swinginess is the top-1% share of points "
            "changing hands with a match-clustered delta-method interval.",
            "Summary gaps between two variants are differences of independent estimates, "
            "with half-widths combined in quadrature (normal approximation) and a two-sided "
            "normal p-value in the report's family.",
        ],
        "seeds": (
            "Every run of the report uses the same seed; deal (match m, deal d) draws all "
            "its randomness from a stream keyed by (seed, m, d), so the main run, every "
            "sweep value and every skill seating see the same walls, and the records do "
            "not depend on the number of threads."
        ),
    }


def _caveats(rulebook: dict) -> list[str]:
    out = [
        "Bots are not people. The strong bot plays for expected points and folds against "
        "a fitted danger of feeding a win, but it does not search, bluff or read an "
        "opponent beyond its visible play, and every seat plays the same way, so seat and "
        "dealer effects are those of equal, mechanical players; real tables add skill "
        "differences and habits the engine does not model. The bot-sensitivity table of "
        "each variant shows how far each headline moves between the value and the strong "
        "bot: a headline that moves describes the bots as much as the rules.",
        "Only the default rules are analysed in full; the sweeps and the sensitivity "
        "table move one option at a time with the others at their defaults, so they say "
        "nothing about combinations (an option inert under the defaults, such as 四鬼胡 "
        "without 鬼, can matter once another option is changed).",
        "Inert options are inert for these bots: an option that only changes what a "
        "player may choose (passing a win, discarding a 财神) does nothing when the bots "
        "never make that choice.",
        "Swinginess (the share of the points that change hands carried by the top 1% of "
        "deals) is shown but not ranked: rare big deals make its interval under-cover "
        "(84-87% for a nominal 95% in repeated synthetic runs of 1,600-8,000 deals).",
        "Rankings claim an order only where a gap is resolved after the report-wide "
        "adjustment; a tie means the data cannot order the variants at this N, not that "
        "they are equal.",
        "Wins are declared whenever legal, and matches are 16 deals with a random first "
        "dealer; other match formats can change dealer-streak effects.",
    ]
    if rulebook.get("open_questions"):
        out.append(
            "Where the sources disagree (RULEBOOK §6), the defaults are our decisions and "
            "each alternative is a rule option: " + " ".join(rulebook["open_questions"])
        )
    else:
        out.append(
            "Where the sources disagree (RULEBOOK §6), the defaults are our decisions and "
            "each alternative is a rule option."
        )
    return out


def _simplifications(doc: str) -> list[str]:
    """The bullet items of the "Engine simplifications" section of a variant docstring."""
    m = re.search(r"Engine simplifications\n-+\n(.*?)(?:\n\S[^\n]*\n-+\n|\Z)", doc or "", re.S)
    if not m:
        return []
    items, cur = [], []
    for line in m.group(1).splitlines():
        if line.startswith("- "):
            if cur:
                items.append(" ".join(cur))
            cur = [line[2:].strip().replace("``", "")]
        elif line.strip() and cur:
            cur.append(line.strip().replace("``", ""))
    if cur:
        items.append(" ".join(cur))
    return items


def _rulebook_file() -> Path:
    return (REPO_ROOT / RULEBOOK_PATH).resolve()


def _rulebook_info() -> dict:
    path = _rulebook_file()
    info = {"path": RULEBOOK_PATH, "found": path.is_file(), "open_questions": []}
    if not info["found"]:
        return info
    text = path.read_text(encoding="utf-8")
    m = re.search(r"^## 6\..*?\n(.*?)(?=^## |\Z)", text, re.S | re.M)
    if m:
        items, cur = [], []
        for line in m.group(1).splitlines():
            if re.match(r"^\d+\.\s", line):
                if cur:
                    items.append(" ".join(cur))
                cur = [line.strip()]
            elif line.strip() and cur:
                cur.append(line.strip())
        if cur:
            items.append(" ".join(cur))
        info["open_questions"] = items
    return info


@functools.lru_cache(maxsize=1)
def _rulebook_slugs() -> dict[str, str]:
    """Section number (``"1.2"``, ``"5"``) -> GitHub anchor of its RULEBOOK heading."""
    slugs: dict[str, str] = {}
    path = _rulebook_file()
    if path.is_file():
        for line in path.read_text(encoding="utf-8").splitlines():
            h = re.match(r"^#{2,4}\s+((\d+(?:\.\d+)?)\.?\s.*)$", line)
            if h:
                text = re.sub(r"[^\w\- ]", "", h.group(1).strip().lower())
                slugs.setdefault(h.group(2), text.replace(" ", "-"))
    return slugs


def _anchor(cite: str) -> str | None:
    """GitHub anchor of the RULEBOOK heading that ``cite`` (``"§1.2 rule 5"``) names."""
    m = re.search(r"§\s*(\d+(?:\.\d+)?)", cite or "")
    return _rulebook_slugs().get(m.group(1)) if m else None


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


# ----------------------------------------------------------------------------- figures
def _reaching(frame: pd.DataFrame, est: str) -> pd.DataFrame:
    """A copy whose ``[lo, hi]`` reaches ``est``, for error bars (drawing only).

    Matplotlib's error bars take distances and refuse negative ones, but an interval may
    miss its point estimate: a parametric-bootstrap interval of the (upward-biased) seat
    spread, or a Wilson bound a rounding error above a rate of exactly 0.
    """
    out = frame.astype({est: float, "lo": float, "hi": float})
    out["lo"] = np.fmin(out["lo"], out[est])
    out["hi"] = np.fmax(out["hi"], out[est])
    return out


def _n_figures(ctx: dict) -> int:
    """How many figures :func:`_figures` draws for this context."""
    return 1 + sum(2 + len(v["sweeps"]) + len(_risk_figures(v)) for v in ctx["variants"].values())


FIGURE_CACHE = "report-figures"
"""Folder, in the cache folder (:func:`engine._cache.cache_dir`), of drawn report figures."""

FIGURE_CACHE_KEEP = 256
"""Most figures the cache keeps (the least recently used go first)."""

_FIGURE_MAGIC = b"mjlab-figure 1\n"


@functools.lru_cache(maxsize=1)
def _figure_code_key() -> bytes:
    """What a figure's pixels depend on besides its data: the drawing code, the style and
    the versions of the libraries that draw and encode it.
    """
    import inspect
    import sys

    import matplotlib
    import PIL
    from matplotlib import ft2font

    from analysis import plots

    h = hashlib.sha256()
    for part in (
        inspect.getsource(sys.modules[__name__]),
        inspect.getsource(plots),
        plots.STYLE.read_text(encoding="utf-8"),
        matplotlib.__version__,
        ft2font.__freetype_version__,
        PIL.__version__,
        np.__version__,
        pd.__version__,
        platform.machine(),
    ):
        h.update(part.encode("utf-8") + b"\0")
    return h.digest()


class _FigureCache:
    """Drawn figures by what they show: ``key -> PNG bytes`` in :data:`FIGURE_CACHE`.

    A figure's key hashes :func:`_figure_code_key` and the matplotlib settings in force
    with its id, caption and data (the context's rows it is drawn from), so a report whose
    numbers did not change reuses its figures byte for byte, and any change to the
    numbers, the drawing code, the style, the settings or matplotlib draws it anew. Each
    file holds a SHA-256 of its PNG and is used only if it matches, is a regular file of
    the user's own and is writable by nobody else (a file another user could change would
    put their picture in the report). The cache is an optimisation: a folder that cannot
    be used or written turns it off, silently.
    """

    def __init__(self, enabled: bool = True):
        self.folder = None
        self.hits = 0
        if not enabled:
            return
        import matplotlib

        from analysis import plots

        with plots.style():  # the settings a figure is drawn with, the user's own included
            rc = repr(sorted((k, repr(v)) for k, v in matplotlib.rcParams.items()))
        self.salt = hashlib.sha256(_figure_code_key() + rc.encode()).digest()
        try:
            from engine._cache import cache_dir

            folder = cache_dir() / FIGURE_CACHE
            folder.mkdir(mode=0o700, exist_ok=True)
            if self._private(folder.lstat(), stat.S_ISDIR):
                self.folder = folder
        except (OSError, RuntimeError):
            self.folder = None

    @staticmethod
    def _private(st: os.stat_result, kind) -> bool:
        return kind(st.st_mode) and st.st_uid == os.geteuid() and not st.st_mode & 0o022

    def key(self, fid: str, caption: str, data) -> str:
        if self.folder is None:
            return ""
        h = hashlib.sha256(self.salt)
        h.update(json.dumps([fid, caption, data], sort_keys=True, allow_nan=True).encode())
        return h.hexdigest()

    def get(self, key: str) -> bytes | None:
        if self.folder is None:
            return None
        path = self.folder / f"{key}.png"
        try:
            fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
        except OSError:
            return None
        try:
            if not self._private(os.fstat(fd), stat.S_ISREG):
                return None
            with os.fdopen(fd, "rb", closefd=False) as f:
                raw = f.read()
        except OSError:
            return None
        finally:
            os.close(fd)
        head = len(_FIGURE_MAGIC)
        digest, png = raw[head : head + 64], raw[head + 65 :]
        if (
            not raw.startswith(_FIGURE_MAGIC)
            or raw[head + 64 : head + 65] != b"\n"
            or hashlib.sha256(png).hexdigest().encode() != digest
        ):
            return None
        try:
            os.utime(path)  # recently used: pruned last
        except OSError:
            pass
        self.hits += 1
        return png

    def put(self, key: str, png: bytes) -> None:
        if self.folder is None:
            return
        from engine import fileio

        data = _FIGURE_MAGIC + hashlib.sha256(png).hexdigest().encode() + b"\n" + png
        try:
            fileio.write_bytes(self.folder / f"{key}.png", data)
            os.chmod(self.folder / f"{key}.png", 0o600)
        except OSError:
            self.folder = None

    def prune(self, keep: int = FIGURE_CACHE_KEEP) -> None:
        if self.folder is None:
            return
        try:
            files = sorted(self.folder.glob("*.png"), key=lambda p: p.stat().st_mtime)
            for old in files[: max(0, len(files) - keep)]:
                old.unlink(missing_ok=True)
        except OSError:
            pass


def _figures(ctx: dict, bar: _Bar | None = None, cache: _FigureCache | None = None) -> list[dict]:
    """Every figure of the report as ``{"id", "caption", "png"}`` (bytes), from the context.

    Each figure is drawn from its data only when ``cache`` does not already hold it.
    """
    from matplotlib.figure import Figure

    from analysis import plots

    cache = cache if cache is not None else _FigureCache(enabled=False)
    out = []

    def save(fid, caption, data, draw):
        key = cache.key(fid, caption, data)
        png = cache.get(key)
        if png is None:
            with plots.style():
                fig = draw()
                buf = io.BytesIO()
                fig.savefig(buf, format="png", dpi=96)
            png = buf.getvalue()
            cache.put(key, png)
        out.append({"id": fid, "caption": caption, "png": png})
        if bar is not None:
            bar.update(1)

    panel = pd.DataFrame(ctx["panel"])
    if len(panel):
        metrics = [m for m in METRICS if (panel["metric"] == m).any()]

        def draw_panel(panel=panel, metrics=metrics):
            ncol = 2
            nrow = -(-len(metrics) // ncol)
            height = 1.0 + 0.35 * panel["label"].nunique()
            fig = Figure(figsize=(9, max(2.2, height) * nrow), layout="constrained")
            axes = np.atleast_1d(fig.subplots(nrow, ncol)).ravel()
            drawn = _reaching(panel, "estimate")
            for ax, m in zip(axes, metrics, strict=False):
                plots.draw_variant_panel(drawn, metric=m, ax=ax)
            for ax in axes[len(metrics) :]:
                ax.set_visible(False)
            return fig

        save(
            "panel",
            "The cross-variant panel: each metric with its 95% interval.",
            [ctx["panel"], metrics, {m: METRICS[m] for m in metrics}],
            draw_panel,
        )
    for name, v in ctx["variants"].items():
        pats = pd.DataFrame(v["patterns"])
        if len(pats):

            def draw_patterns(pats=pats):
                frame = (
                    _reaching(pats[pats["per"] == "win"], "rate")
                    .sort_values("rate", ascending=False, kind="stable")
                    .reset_index(drop=True)
                )
                fig = Figure(figsize=(7, 1.2 + 0.28 * len(frame)), layout="constrained")
                plots.draw_pattern_frequencies(frame, ax=fig.subplots())
                return fig

            save(
                f"{name}-patterns",
                f"{name}: share of won deals with each pattern (95% Wilson intervals).",
                v["patterns"],
                draw_patterns,
            )
        hist = pd.DataFrame(v["delta_histogram"])
        if len(hist):

            def draw_deltas(hist=hist):
                fig = Figure(figsize=(7, 3.6), layout="constrained")
                plots.draw_delta_distribution(
                    hist.astype({"lo": float, "hi": float}), ax=fig.subplots()
                )
                return fig

            save(
                f"{name}-deltas",
                f"{name}: distribution of each seat's result per deal.",
                v["delta_histogram"],
                draw_deltas,
            )
        for fid, caption, size, draw in _risk_figures(v):

            def draw_risk_part(size=size, draw=draw):
                fig = Figure(figsize=size, layout="constrained")
                draw(fig)
                return fig

            save(
                f"{name}-{fid}",
                f"{name}: {caption}",
                [v.get("risk"), v.get("sensitivity")],
                draw_risk_part,
            )
        for sw in v["sweeps"]:
            table = pd.DataFrame(sw["table"])
            metrics = [m for m in SWEEP_FIGURE_METRICS if (table["metric"] == m).any()]
            if not metrics:
                continue
            table = table.astype(
                {c: float for c in table.columns if c.startswith(("diff", "unpaired"))}
            )
            ncol = 2 if len(metrics) <= 4 else 3
            base = sw.get("baseline", sw.get("default"))
            bands = (
                "paired (band) and unpaired (dashed) 95% intervals"
                if sw.get("paired", True)
                else "unpaired 95% intervals (the option changes the cards dealt)"
            )

            def draw_sweep(table=table, metrics=metrics, ncol=ncol):
                fig = Figure(figsize=(4.5 * ncol, 6), layout="constrained")
                axes = fig.subplots(2, ncol).ravel()
                for i, (ax, m) in enumerate(zip(axes, metrics, strict=False)):
                    plots.draw_sweep(table, metric=m, ax=ax)
                    ax.set_ylabel(f"{m}: diff. from baseline", fontsize=8)
                    if i and ax.get_legend() is not None:
                        ax.get_legend().remove()
                for ax in axes[len(metrics) :]:
                    ax.set_visible(False)
                return fig

            save(
                f"{name}-sweep-{sw['option']}",
                f"{name}: {sw['option']} sweep, difference from the baseline "
                f"{sw['option']}={base} (the default) with {bands}; each metric is "
                "defined in the table below the figure.",
                [sw["table"], metrics],
                draw_sweep,
            )
    return out


def _risk_figures(v: dict) -> list[tuple]:
    """The match-risk and sensitivity figures of a variant: ``(id, caption, size, draw)``."""
    from analysis import sensitivity as sens
    from analysis.risk import draw_match_loss

    out = []
    risk = v.get("risk")
    if risk and risk.get("curve"):
        curve = pd.DataFrame(risk["curve"]).astype({"value": float, "lo": float, "hi": float})

        def draw_risk(fig, curve=curve, amounts=risk["amounts"]):
            # the unit's name stays out of the figure: its CJK glyphs are not in the font
            draw_match_loss(curve, ax=fig.subplots(), unit="points", amounts=amounts)

        out.append(
            (
                "risk",
                "chance of losing more than x over a match of "
                f"{risk['deals_per_match']:g} deals, by the seat's role at the match's start "
                "(bands: 95% Wilson intervals; dashed: a seat at random; dotted: the stated "
                "amounts of the table).",
                (7, 3.6),
                draw_risk,
            )
        )
    sv = v.get("sensitivity")
    if sv and sv.get("table"):
        table = pd.DataFrame(sv["table"])
        table = table.astype({c: float for c in ("diff", "diff_lo", "diff_hi")})
        live = table[~table["inert"].astype(bool)]
        rows = live[["option", "option_value"]].drop_duplicates().shape[0]
        if rows:

            def draw_sens(fig, table=table):
                axes = fig.subplots(1, len(sens.METRICS), sharey=True)
                sens.draw_sensitivity(table, axes=np.atleast_1d(axes), alpha=ALPHA, unit="points")

            out.append(
                (
                    "sensitivity",
                    f"each rule option value's difference from the default rules "
                    f"({sv['deals']:,} deals per value on the same seed; filled: resolved "
                    "after the report-wide Holm adjustment; 95% intervals, paired unless the "
                    "option changes the cards dealt).",
                    (10, 1.4 + 0.24 * rows),
                    draw_sens,
                )
            )
    return out


# ----------------------------------------------------------------------------- render
def _environment(kind: str):
    import jinja2

    loader = jinja2.PackageLoader("analysis", "templates")
    if kind == "html":
        env = jinja2.Environment(
            loader=loader,
            autoescape=True,
            undefined=jinja2.StrictUndefined,
            trim_blocks=True,
            lstrip_blocks=True,
        )
    else:
        env = jinja2.Environment(
            loader=loader,
            autoescape=False,
            finalize=_md_finalize,
            undefined=jinja2.StrictUndefined,
            trim_blocks=True,
            lstrip_blocks=True,
        )
    env.filters.update(
        num=_num,
        matches=_matches,
        pct=_pct,
        ci=_ci,
        pci=_pci,
        pm=_pm,
        p=_p,
        signed=_signed,
        show=_show,
    )
    env.globals["md_raw"] = _MdRaw
    return env


class _MdRaw(str):
    """A string the Markdown renderer must not escape (links and image paths we build)."""


_MD_SPECIAL = re.compile(r"([\\`*_\[\]|#!])")


def _md_escape(text: str) -> str:
    """Text that Markdown shows as is: HTML made inert, Markdown punctuation escaped."""
    text = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return _MD_SPECIAL.sub(r"\\\1", text.replace("\n", " "))


def _md_finalize(value):
    if isinstance(value, _MdRaw):
        return str(value)
    if value is None:
        return "n/a"
    return _md_escape(str(value))


def _isnum(x) -> bool:
    return isinstance(x, int | float) and not isinstance(x, bool) and math.isfinite(x)


def _num(x, digits: int = 3) -> str:
    if isinstance(x, bool):
        return "yes" if x else "no"
    if isinstance(x, int):
        return f"{x:,}"
    if not _isnum(x):
        return "n/a"
    if digits > 0 and x != 0 and abs(x) < 10**-digits:
        return f"{x:.{digits - 1}e}"
    return f"{x:,.{digits}f}"


def _matches(x) -> str:
    """A number of matches, rounded up; ``never`` when infinite (JSON null)."""
    if not _isnum(x):
        return "never"
    return f"{math.ceil(x):,}"


def _signed(x, digits: int = 3) -> str:
    if not _isnum(x):
        return "n/a"
    return f"{x:+.{digits}f}"


def _pct(x, digits: int = 2) -> str:
    if not _isnum(x):
        return "n/a"
    return f"{100 * x:.{digits}f}%"


def _ci(est, lo, hi, digits: int = 3, signed: bool = True) -> str:
    f = _signed if signed else _num
    if not _isnum(est):
        return "n/a"
    if not (_isnum(lo) and _isnum(hi)):
        return f(est, digits)
    return f"{f(est, digits)} [{f(lo, digits)}, {f(hi, digits)}]"


def _pci(rate, lo, hi, digits: int = 2) -> str:
    if not _isnum(rate):
        return "n/a"
    if not (_isnum(lo) and _isnum(hi)):
        return _pct(rate, digits)
    return f"{_pct(rate, digits)} [{100 * lo:.{digits}f}, {100 * hi:.{digits}f}]"


def _pm(est, lo, hi) -> str:
    if not _isnum(est):
        return "n/a"
    if not (_isnum(lo) and _isnum(hi)):
        return f"{est:.3g}"
    return format_pm(est, (hi - lo) / 2)


def _p(p) -> str:
    from analysis.stats import format_p

    if not _isnum(p):
        return "n/a"
    return format_p(p)


def _show(v) -> str:
    if isinstance(v, bool):
        return str(v).lower()
    return str(v)


_KIND_LABEL = {
    "sanity": "engine sanity check: null true by construction, expected to pass",
    "equivalence": "equivalence test (TOST): a rejection means fair within the margin",
    "finding": "",
}


def _views(ctx: dict) -> dict:
    """Presentation-only regroupings of the context's tidy tables (no new numbers)."""
    out = {}
    for name, v in ctx["variants"].items():
        info = {p["pattern"]: p for p in v["pattern_info"]}
        pats = {}
        for r in v["patterns"]:
            row = pats.setdefault(
                r["pattern"], {"pattern": r["pattern"], **info.get(r["pattern"], {})}
            )
            row[r["per"]] = r
        ordered = sorted(pats.values(), key=lambda r: -(r.get("win", {}).get("rate") or 0))
        seats = []
        for r in v["payouts_seat"]:
            wins = next(
                (
                    w
                    for w in v["seats"]
                    if w["seat"] == r["seat"] and w["event"] == "win" and w["per"] == "deal"
                ),
                None,
            )
            dealt = next(
                (
                    w
                    for w in v["seats"]
                    if w["seat"] == r["seat"] and w["event"] == "deal_in" and w["per"] == "deal"
                ),
                None,
            )
            seats.append({"pay": r, "win": wins, "deal_in": dealt})
        roles = []
        for r in v["payouts_role"]:
            wins = next(
                (w for w in v["roles"] if w["distance"] == r["distance"] and w["per"] == "deal"),
                None,
            )
            roles.append({"pay": r, "win": wins, "prose": ROLE_PROSE.get(r["role"], r["role"])})
        wt = []
        for r in v["win_types"]:
            if r["per"] != "deal":
                continue
            pay = {
                p["quantity"]: p for p in v["win_type_payouts"] if p["win_type"] == r["win_type"]
            }
            wt.append({"freq": r, "pay": pay})
        sweeps = []
        for sw in v["sweeps"]:
            rows = {}
            for r in sw["table"]:
                base = r.get("is_baseline", r.get("is_default"))
                rows.setdefault(r["metric"], []).append({**r, "base": base})
            docs = {m["metric"]: m["doc"] for m in sw.get("metric_docs", [])}
            sweeps.append(
                {
                    "sweep": sw,
                    "by_metric": rows,
                    "baseline": sw.get("baseline", sw.get("default")),
                    "paired": sw.get("paired", True),
                    "docs": docs,
                }
            )
        fairness = [
            {**t, "kind": t.get("kind", "finding"), "label": _KIND_LABEL.get(t.get("kind"), "")}
            for t in v["fairness"]
        ]
        skill = [{"skill": sk, "rows": sk["table"]} for sk in v["skill"]]
        risk, sens = _risk_view(v.get("risk")), _sensitivity_view(v.get("sensitivity"))
        out[name] = {
            "risk": risk,
            "sensitivity": sens,
            "patterns": ordered,
            "seats": seats,
            "roles": roles,
            "win_types": wt,
            "sweeps": sweeps,
            "skill": skill,
            "fairness": fairness,
            "dealer_edge": v.get("dealer_edge"),
        }
    panel = {}
    for r in ctx["panel"]:
        panel.setdefault(r["label"], {})[r["metric"]] = r
    return {"variants": out, "panel": panel}


def _risk_view(risk: dict | None) -> dict | None:
    """Match risk as one row per role: mean, the quantiles and each stated amount."""
    if not risk:
        return None
    rows: dict[int, dict] = {}
    qs, xs = [], []
    for r in risk["table"]:
        row = rows.setdefault(r["distance"], {"role": r["role"], "distance": r["distance"]})
        if r["stat"] == "mean":
            row["mean"] = r
        elif r["stat"] == "quantile":
            row.setdefault("q", {})[r["at"]] = r
            if r["at"] not in qs:
                qs.append(r["at"])
        else:
            row.setdefault("loss", {})[r["at"]] = r
            if r["at"] not in xs:
                xs.append(r["at"])
    order = sorted(rows, key=lambda d: d if d >= 0 else 1 << 30)
    return {
        "rows": [rows[d] for d in order],
        "quantiles": qs,
        "amounts": xs,
        "matches": risk["matches"],
        "deals_per_match": risk["deals_per_match"],
        "stated": risk.get("stated", True),
    }


def _sensitivity_view(sv: dict | None) -> dict | None:
    """The sensitivity table as one row per option value, a cell per metric."""
    if not sv:
        return None
    rows: dict[tuple, dict] = {}
    for r in sv["table"]:
        key = (r["option"], r["option_value"])
        row = rows.setdefault(
            key,
            {
                "option": r["option"],
                "value": r["option_value"],
                "baseline": r["baseline"],
                "paired": r["paired"],
                "inert": r["inert"],
                "cells": {},
            },
        )
        p = r.get("p_adj")
        row["cells"][r["metric"]] = {**r, "resolved": p is not None and p < ALPHA}
        row["inert"] = row["inert"] and r["inert"]
    return {
        "rows": list(rows.values()),
        "metrics": sv["metrics"],
        "docs": {m["metric"]: m["doc"] for m in sv.get("metric_docs", [])},
        "ranking": sv.get("ranking", []),
        "recommendations": sv.get("recommendations", []),
        "skipped": sv.get("skipped", []),
        "deals": sv["deals"],
        "skill_deals": sv.get("skill_deals", 0),
    }


def _write_atomic(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` atomically with the user's umask (engine.fileio)."""
    from engine import fileio

    fileio.write_bytes(path, data)


def render(
    context: dict, out_dir, *, progress: bool = False, figure_cache: bool = True
) -> dict[str, Path]:
    """Write the HTML, Markdown (with PNG figures) and JSON files of a report context.

    Parameters
    ----------
    context : dict
        :func:`build_report` output (or the JSON file read back).
    out_dir : str or Path
        Output folder (created if missing; its parent must exist and be writable).
    progress : bool
        Show a progress bar over the figures.
    figure_cache : bool
        Reuse the figures drawn before from the same data, byte for byte, and keep the
        ones drawn now (:class:`_FigureCache`, in the cache folder); False draws every
        figure.

    Returns
    -------
    dict of str to Path
        ``{"html": ..., "md": ..., "json": ..., "figures": [...]}``.

    Notes
    -----
    Every file is written to a temporary name in the same folder and renamed when
    complete, the figures first and the JSON last, so a reader never sees a partial
    file. Every string of the context is escaped (Jinja2 autoescape for HTML; Markdown
    punctuation and ``<``/``&`` for Markdown).
    """
    out = check_out_dir(out_dir)
    ctx = jsonable(context)
    bar = _Bar(progress, _n_figures(ctx), "figures", unit="figure")
    cache = _FigureCache(figure_cache)
    try:
        figs = _figures(ctx, bar, cache)
    finally:
        bar.close()
    cache.prune()
    views = _views(ctx)
    rb = _rulebook_file()
    rb_href = os.path.relpath(rb, out.resolve()) if ctx["rulebook"].get("found") else None
    if rb_href is not None:
        rb_href = rb_href.replace(os.sep, "/")
    html_env = _environment("html")
    md_env = _environment("md")
    fig_by_id = {f["id"]: f for f in figs}
    html_figs = {
        f["id"]: {
            "src": "data:image/png;base64," + base64.b64encode(f["png"]).decode("ascii"),
            "caption": f["caption"],
        }
        for f in figs
    }
    md_figs = {
        f["id"]: {"src": _MdRaw(f"{FIGURES_DIR}/{f['id']}.png"), "caption": f["caption"]}
        for f in figs
    }
    css = (Path(__file__).with_name("templates") / "report.css").read_text(encoding="utf-8")
    common = {"ctx": ctx, "views": views, "rulebook_href": rb_href}
    html = html_env.get_template("report.html.j2").render(**common, figs=html_figs, css=css)
    md = md_env.get_template("report.md.j2").render(
        **common,
        figs=md_figs,
        rulebook_link=_MdRaw(rb_href) if rb_href else None,
    )
    data = json.dumps(ctx, ensure_ascii=False, indent=1, allow_nan=False)

    out.mkdir(parents=True, exist_ok=True)
    fig_dir = out / FIGURES_DIR
    fig_dir.mkdir(exist_ok=True)
    written = []
    for fid, f in fig_by_id.items():
        path = fig_dir / f"{fid}.png"
        _write_atomic(path, f["png"])
        written.append(path)
    keep = {p.name for p in written}
    for old in fig_dir.glob("*.png"):
        if old.name not in keep:
            old.unlink()
    paths = {
        "html": out / FILES[0],
        "md": out / FILES[1],
        "json": out / FILES[2],
    }
    _write_atomic(paths["html"], html.encode("utf-8"))
    _write_atomic(paths["md"], md.encode("utf-8"))
    _write_atomic(paths["json"], (data + "\n").encode("utf-8"))
    return {**paths, "figures": written}


# ----------------------------------------------------------------------------- CLI
def run_cli(args) -> int:
    """Handle ``mjlab report [--variants a,b] [--deals N] [--seed S] [--out DIR]``.

    Every input is checked before anything is simulated or written: an unknown
    variant, too few deals or an unwritable folder exit 2 with one line.
    """
    names = _resolve_variants(args.variants)
    _check_deals(args.deals)
    from engine.run import MAX_SEED, MAX_WORKERS, check_memory

    if not 0 <= args.seed <= MAX_SEED:
        raise UsageError(f"--seed must be 0..{MAX_SEED}, got {args.seed}")
    if args.workers is not None and not 1 <= args.workers <= MAX_WORKERS:
        raise UsageError(f"--workers must be 1..{MAX_WORKERS}, got {args.workers}")
    if args.deals is not None:
        check_memory(
            args.deals, "give fewer --deals (the report holds each run in memory)", copies=2
        )
    out = check_out_dir(args.out)
    from engine import fileio

    t0 = time.perf_counter()
    created = not out.exists()
    out.mkdir(parents=True, exist_ok=True)
    try:
        with fileio.OutputLock(out, f"report --seed {args.seed}"):
            ctx = build_report(
                variants=None if args.variants is None else names,
                deals=args.deals,
                seed=args.seed,
                workers=args.workers,
                progress=not args.quiet,
            )
            paths = render(ctx, out, progress=not args.quiet)
    except BaseException:
        if created:
            try:
                out.rmdir()
            except OSError:
                pass
        raise
    if not args.quiet:
        took = time.perf_counter() - t0
        print(
            f"wrote {paths['html']}, {paths['md']} ({len(paths['figures'])} figures in "
            f"{out / FIGURES_DIR}) and {paths['json']} in {took:.0f} s"
        )
    return 0
