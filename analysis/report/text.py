"""The words of the balance report: rankings and their sentences, methods, caveats and the
rules reference's open questions (:mod:`engine.runs.rulesdoc`).
"""

from __future__ import annotations

import math
import re

import numpy as np

from analysis._util import jsonable
from analysis.compare import METRICS
from analysis.fairness import MARGIN_SD, word_verdicts
from analysis.report._config import (
    ALPHA,
    LEVEL,
    POLICY_DOCS,
    RULES_DIR,
    SENSES,
    SKILL_PAIRS,
)
from analysis.stats import format_pm


def _sensitivity_words(sections: dict, family: str) -> dict:
    """Per variant: the ranking and the recommendations, from the adjusted p-values."""
    from analysis import sensitivity as sens
    from analysis.recommend import recommendations

    out = {}
    for name, sec in sections.items():
        sv = sec.get("sensitivity")
        if not sv:
            continue
        conf = sv.get("confirm")
        flags = {(r["option"], r["option_value"]): r["why"]
                 for r in sv.get("guard") or [] if r["flag"]}  # fmt: skip
        words = recommendations(
            sv["table"],
            name=sec["long_name"].split(" ")[0],
            unit=sec["value_unit"],
            alpha=ALPHA,
            deals=None if sv.get("screen") else sv["deals"],
            family=family,
            policy="value",  # the sensitivity table's bots (data._run_sensitivity)
            confirmed=conf["table"] if conf else [],
            confirm_policy=conf["policies"] if conf else None,
            guard=flags,
            screen=_screen_words(sv),
        )
        sv["recommendations"] = words
        sv["ranking"] = jsonable(sens.ranking(sv["table"], alpha=ALPHA))
        out[name] = words
    return out


def _screen_words(sv: dict) -> str | None:
    """How the sensitivity table was screened and which values were played again at full
    size (the two-stage design of :mod:`analysis.report.data`), in words; None for a
    table that is not a screen.
    """
    sc = sv.get("screen")
    if not sc:
        return None
    how = "exact" if sc["exact"] else (
        "first-order, since these bots read the payouts and might play differently under "
        "the change"
    )  # fmt: skip
    text = (
        f"The table is a screen: {sc['rescored']} values of payout options re-scored from "
        f"the {sc['rescore_deals']:,} deals of the main run played by {sc['policies']} "
        f"bots (no simulation; {how}) and {sc['simulated']} values of play options "
        f"simulated at {sc['deals']:,} deals each on the report's seed; Benjamini-Hochberg "
        f"over the report's {sc['family']} screened tests controls the false-discovery "
        f"rate at {sc['q']:g} (each interval at the matching false-coverage level)."
    )
    ins = sv.get("screened_in") or []
    if not ins:
        return text + " No value passed the screen, so none was played again."
    names = [f"{r['option']}={r['option_value']}" for r in ins]
    text += (
        f" {len(ins)} could matter (resolved, or within the interval of the largest "
        f"change of the dealer edge in SD units): {', '.join(names)}."
    )
    conf = sv.get("confirm")
    played = [r for r in ins if r["played"]]
    if conf and played:
        ok = {(r["option"], str(r["option_value"])) for r in conf["table"] if r["confirmed"]}
        both = [(f"{r['option']}={r['option_value']}", (r["option"], str(r["option_value"])))
                for r in played]  # fmt: skip
        yes = [label for label, key in both if key in ok]
        text += (
            f" Played again at full size ({conf['deals']:,} deals each, {conf['policies']} "
            f"bots, a fresh seed {conf['seed']}): {', '.join(label for label, _ in both)}; "
            f"confirmed: {', '.join(yes) or 'none'}."
        )
    rest = len(ins) - len(played)
    if rest:
        text += (
            f" The other {rest} were not played again (a change whose direction is unclear, "
            "or beyond the largest few each way)."
        )
    return text


# ----------------------------------------------------------------------------- multiplicity
def _adjust_report(sections: dict, senses: list) -> str:
    """Holm-adjust every finding's p-value of the report together, and redo each interval
    beside one at the level its adjusted test tests at; return the family in words.

    The family: every fairness finding of every variant (the seat sanity checks keep
    their own family: their null holds by construction), every difference of every sweep
    from its baseline, the skill rows of the sensitivity tables (their screen rows are a
    family of their own: :func:`analysis.sensitivity.screen`), every difference of the
    bot-sensitivity tables, and every ranking gap of the summary. ``p_adj``, ``reject``,
    the level (``diff_level``, ``effect_level``, ``gap_level``) and the interval beside
    each (``diff_lo``/``diff_hi``, ``effect_lo``/``effect_hi``, ``gap_lo``/``gap_hi``:
    :func:`analysis.stats.adjusted_levels`, so that it excludes 0 exactly when the
    verdict says resolved) are rewritten in place, the unadjusted interval kept in
    ``raw_lo``/``raw_hi``; each fairness verdict is reworded.
    """
    from analysis.fairness import set_family
    from analysis.stats import adjust_pvalues, adjusted_levels

    # (kind, container, index): "row" a dict with diff_*; "gap" a ranking gap; "fair" a
    # fairness table's row
    slots: list[tuple[str, object, object]] = []
    for sec in sections.values():
        ft = sec["fairness"]
        for i in range(len(ft)):
            if ft["kind"].iloc[i] != "sanity":
                slots.append(("fair", ft, i))
        for sw in sec["sweeps"]:
            for row in sw["table"]:
                if row.get("p") is not None:
                    slots.append(("row", row, None))
        for row in (sec.get("sensitivity") or {}).get("table", []):
            # the screen's rows have their own family (BH); the skill rows are findings
            if row.get("p") is not None and row.get("adjust") != "bh":
                slots.append(("row", row, None))
        for row in (sec.get("bots") or {}).get("table", []):
            if row.get("p") is not None:
                slots.append(("row", row, None))
    for item in senses:
        for g in item["adjacent"]:
            slots.append(("gap", g, None))
        if "span_test" in item:
            slots.append(("gap", item["span_test"], None))

    def raw(slot):
        kind, c, i = slot
        v = c["p"].iloc[i] if kind == "fair" else c.get("p")
        return math.nan if v is None else float(v)

    ps = np.array([raw(x) for x in slots], dtype=float)
    n = int(np.isfinite(ps).sum())
    adj = adjust_pvalues(ps, "holm")
    levels = adjusted_levels(ps, "holm", ALPHA)
    family = f"the {n} tests of this report"
    fair: dict[int, list] = {}
    for (kind, c, i), a, lv in zip(slots, adj, levels, strict=True):
        a = None if not math.isfinite(a) else float(a)
        if kind == "fair":
            fair.setdefault(id(c), [c, {}])[1][i] = (a, lv)
            continue
        c["p_adj"] = a
        c["adjust"] = "holm"
        c["reject"] = a is not None and a < ALPHA
        if a is None:
            continue
        if kind == "gap":
            _redo_gap(c, float(lv))
        else:
            _redo_row(c, float(lv))
    for sec in sections.values():
        ft = sec["fairness"]
        got = fair.get(id(ft), [ft, {}])[1]
        sanity = (ft["kind"] == "sanity").to_numpy()
        p_adj = ft["p_adj"].to_numpy(dtype=float).copy()
        lv = ft["effect_level"].to_numpy(dtype=float).copy()
        for i, (a, level) in got.items():
            p_adj[i] = math.nan if a is None else a
            lv[i] = level
        out = set_family(ft, adjust="holm", alpha=ALPHA, p_adj=p_adj, levels=lv)
        out["family"] = np.where(sanity, ft["family"].to_numpy(), n)
        # the sanity checks keep their own family's adjustment
        for col in ("p_adj", "reject", "effect_level", "effect_lo", "effect_hi"):
            out.loc[sanity, col] = ft.loc[sanity, col]
        sec["fairness"] = word_verdicts(out, sec["players"], family)
    return family


def _redo_row(row: dict, level: float) -> None:
    """A tested difference's interval at ``level`` (keeping the unadjusted one)."""
    from analysis.stats import interval_at

    if row.get("raw_lo") is None or (isinstance(row["raw_lo"], float) and
                                     math.isnan(row["raw_lo"])):  # fmt: skip
        row["raw_lo"], row["raw_hi"] = row.get("diff_lo"), row.get("diff_hi")
    row["diff_level"] = level
    if row.get("diff_se") is None and row.get("interval") != "newcombe":
        return
    kind = row.get("interval") or "normal"
    lo, hi = interval_at({**row, "interval": kind}, level, "diff")
    row["diff_lo"], row["diff_hi"] = float(lo), float(hi)


def _redo_gap(g: dict, level: float) -> None:
    """A ranking gap's normal interval at ``level`` (its SE from the interval at LEVEL)."""
    from analysis.stats import z_value

    if g.get("gap_lo") is None or g.get("gap_hi") is None:
        return
    g.setdefault("raw_lo", g["gap_lo"])
    g.setdefault("raw_hi", g["gap_hi"])
    se = (g["raw_hi"] - g["raw_lo"]) / (2 * z_value(LEVEL))
    g["gap_level"] = level
    g["gap_lo"], g["gap_hi"] = g["gap"] - z_value(level) * se, g["gap"] + z_value(level) * se


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
        lo = e.get("lo")
        if x > 0 and lo is not None and lo > 0:  # only a resolved edge gets a match count
            k = math.ceil((float(norm.ppf(0.95)) / x) ** 2)
            text += f", enough to be ahead after about {k:,} matches 95% of the time"
        elif x > 0:
            text += " (not resolved from 0, so no number of matches to be ahead is claimed)"
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
        unit = METRICS[metric]
        if metric == "skill_snr":  # name what it measures: the panel's skill pair
            strong, weak = SKILL_PAIRS[0]
            sense = f"{sense} ({strong} over {weak})"
            unit = f"a {strong} bot's edge over {weak} bots per match / SD of a match total"
        item = {
            "metric": metric,
            "sense": sense,
            "better": better,
            "unit": unit,
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
    lead = (
        f"Rewarding skill most ({item['sense'].split('(', 1)[-1].rstrip(')')})"
        if item["metric"] == "skill_snr"
        else f"Fairest {item['sense']}"
    )
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
    # "Last is X" only where the ranking table puts X alone in last place (the gap
    # before it resolved); otherwise the last places are tied and no last is named
    alone_last = len(e) > 1 and e[-1]["rank"] > e[-2]["rank"]
    if len(e) > len(top) and len(e) > 2 and "span_test" in item and alone_last:
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
            "Multiplicity: every p-value of a finding in this report (the fairness tests of "
            "every variant but the two seat sanity checks, which are adjusted apart, every "
            "sweep difference from its baseline, the skill edges of the sensitivity tables, "
            "every difference of the bot-sensitivity tables and every ranking gap of the "
            "summary; the sensitivity screen is a family of its own, below) is Holm-adjusted "
            "as one family, so the chance of any false finding in "
            f"the whole report is at most {ALPHA:g}; 'adjusted p' always means this "
            "report-wide Holm adjustment. The interval beside an adjusted p is at the level "
            "its Holm step tests at (1 − α/(m − k + 1) for the k-th smallest of m p-values "
            "when it is rejected, 1 − α/m otherwise), so it excludes 0 exactly when the "
            "verdict says resolved; a rare-event rate difference has Newcombe's interval "
            "(from the two Wilson intervals) and the p-value that agrees with it.",
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
            "Sensitivity, in two stages. The screen: every non-default value of every rule "
            "option, one at a time with the others at their defaults, against the defaults "
            "on the report's seed with value bots; a payout option's values are re-scored "
            "from the main run's value-bot deals by the variant's own settlement kernel (no "
            "simulation: exact for bots that read no payout, first-order for value bots, "
            "which do, and labelled so), a play option's values are played on the screen's "
            "deals and compared with the first deals of the main run as a sweep (paired "
            "deal by deal unless the option changes the cards dealt); a value that leaves "
            "every deal's result unchanged is called inert and has no test. "
            "Benjamini-Hochberg over every screened test of the report controls the "
            f"false-discovery rate at {ALPHA:g}, each interval at Benjamini and Yekutieli's "
            "matching false-coverage level (1 − Rq/m with R of m passed), so clear of 0 "
            "exactly when the value passes. The confirmation: the values whose change of "
            "the dealer edge in SD units could matter (passed the screen, or lies within the "
            "interval of the largest change; the three largest each way) are played again "
            "at full size by the report's bots on a fresh seed. A recommendation reads the "
            "dealer edge in SD units (which does not move with the stakes: a change that "
            "only shrinks every payment is not fairer), points beside: it calls a change "
            "fairer when it brings the edge toward 0 without carrying it past 0 (the "
            "defaults' edge resolved from 0), and prints it only after the fresh run gives "
            "a difference of the same sign resolved after Holm over the changes confirmed, "
            "moving fairness the same way. The skill edge (value over efficiency) is "
            "measured only for the confirmed values of play options (a payout option changes "
            "no play), in duplicate seating by place from the dealer, one run per place, "
            "compared with the defaults' skill runs match by match on the same walls (a "
            "ratio estimator with matches as units; unpaired when the option changes the "
            "cards dealt), and adjusted with the report's findings.",
            "Cross-variant panel: payout effects divided by the variant's pooled per-deal "
            "SD of a seat's result (SD units); swinginess is the top-1% share of points "
            "changing hands with a match-clustered delta-method interval.",
            "Bot check (analysis.guard): at every headline sweep value (at the sweep's N) "
            "and every confirmed change (at the confirmation's N), strong against value in "
            "duplicate seating by dealer, and the two bots' draw rates against the gap "
            "between them at the defaults; a setting where value beats strong by a "
            "resolved margin, or where the draw-rate gap moves by more than 5 percentage "
            "points (its interval clear of that), is flagged a possible bot artifact and "
            "is not a finding. The sensitivity screen's other values are value-bot "
            "measurements and are not checked (strong bots at all of them would cost "
            "several times the table).",
            "Decision audit (mjlab audit): what the report's bots chose wherever they had "
            "a choice, replaying a few hundred deals with the event log on; a share of "
            "choices has a Wilson interval, a count per deal a Poisson interval.",
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


def _rulebook_info() -> dict:
    """The rules reference the report links to, and where the sources disagree.

    Both ship with the package (:mod:`engine.runs.rulesdoc`): nothing is read from outside it.
    """
    from engine.runs import rulesdoc

    return {
        "reference": f"{RULES_DIR}/{rulesdoc.page_name(rulesdoc.INDEX, 'html')}",
        "open_questions": rulesdoc.open_questions(),
    }
