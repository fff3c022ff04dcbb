"""The balance report: its numbers, escaping, bad input and atomic writes (tiny N)."""

from __future__ import annotations

import doctest
import json
import os
from pathlib import Path

import markupsafe
import pandas as pd
import pytest

import analysis
import engine
from analysis import jsonable, report
from analysis.ladder import rung_row
from analysis.sweep import sweep_table
from engine import simulate, variants
from engine.errors import UsageError
from mjlab.cli import main

N = 64
SEED = 5


def chosen_variants() -> list[str]:
    """tuidaohu (two sweeps, one of them categorical) and one more registered variant."""
    names = variants.names()
    first = "tuidaohu" if "tuidaohu" in names else names[0]
    others = [n for n in names if n != first]
    return [first, *others[:1]]


@pytest.fixture(scope="module")
def made(tmp_path_factory):
    """``mjlab report`` at tiny N through the CLI: (out folder, context read back)."""
    out = tmp_path_factory.mktemp("made") / "reports"
    names = chosen_variants()
    argv = ["report", "--variants", ",".join(names), "--deals", str(N), "--seed", str(SEED)]
    assert main([*argv, "--out", str(out), "--quiet"]) == 0
    ctx = json.loads((out / "balance-report.json").read_text(encoding="utf-8"))
    return out, ctx


def rerun(name: str, deals: int, rules=None, policies=None, seating="seat") -> pd.DataFrame:
    """The records a report run made (its bots by default: report.report_policy)."""
    if policies is None:
        policies = report.report_policy(variants.get(name))
    return simulate(
        name, deals, seed=SEED, rules=rules, policies=policies, workers=1, progress=False,
        seating=seating,
    ).to_pandas()  # fmt: skip


def skill_frames(name: str, sec: dict, sk: dict) -> dict[int, pd.DataFrame]:
    """The records of the runs of a skill comparison ``sk`` of the variant's report section
    ``sec``, by the strong policy's seat (the weak one in every other seat, dealer seating).
    """
    players = sec["players"]
    frames = {}
    for seat in range(players):
        pol = [sk["weak"]] * players
        pol[seat] = sk["strong"]
        frames[seat] = rerun(name, sec["budget"]["skill"], policies=pol, seating="dealer")
    return frames


def trimmed(ctx: dict) -> dict:
    """A copy of the context with one variant and no sweeps: three figures, quick to render."""
    ctx = json.loads(json.dumps(ctx))
    first = ctx["settings"]["variants"][0]
    ctx["settings"]["variants"] = [first]
    ctx["variants"] = {first: {**ctx["variants"][first], "sweeps": []}}
    ctx["panel"] = [r for r in ctx["panel"] if r["label"] == first]
    return ctx


def test_files_and_identity(made):
    out, ctx = made
    names = chosen_variants()
    assert sorted(p.name for p in out.iterdir()) == sorted(
        [*report.FILES, report.FIGURES_DIR, report.RULES_DIR]
    )
    figs = sorted(p.name for p in (out / report.FIGURES_DIR).iterdir())
    want = ["panel.png"] + [
        f"{n}-{kind}.png"
        for n in names
        for kind in [
            "deltas",
            "patterns",
            "risk",
            "sensitivity",
            *(f"sweep-{s['option']}" for s in ctx["variants"][n]["sweeps"]),
        ]
    ]
    assert figs == sorted(want)
    assert not [p for p in out.rglob("*") if p.name.startswith(".")], "temporary files left"
    st = ctx["settings"]
    assert st["variants"] == names and st["seed"] == SEED and st["deals_option"] == N
    for n in names:
        v = variants.get(n)
        sec = ctx["variants"][n]
        assert sec["version"] == v.version
        assert sec["rules_id"] == v.rules_id(v.defaults())
        assert [r["key"] for r in sec["rules"]] == [o.key for o in v.options]
        assert all(r["value"] == r["default"] and r["is_default"] for r in sec["rules"])
        assert sec["budget"] == {
            "main": N,
            "sweep": N // 2,
            "skill": N // 2,
            "sensitivity": N // 2,
            "sensitivity_skill": max(report.MIN_DEALS, N // 4),
            "whatif_check": max(report.MIN_DEALS, N // 4),
            "confirm": max(report.MIN_DEALS, N // 4),
            "audit": max(report.MIN_DEALS, N // 4),
        }
    assert ctx["generated"]["package_version"] == engine.__version__


def test_numbers_equal_the_analysis_of_the_records(made):
    """Every table of the context equals the analysis layer's on re-simulated records."""
    _, ctx = made
    for n in ctx["settings"]["variants"]:
        sec = ctx["variants"][n]
        b = sec["budget"]
        df = rerun(n, b["main"])
        s = analysis.Summary.from_records(df)
        assert sec["deals"] == s.n_deals == N and sec["wins"] == s.n_wins
        for key, fn in [
            ("patterns", analysis.pattern_frequencies),
            ("win_types", analysis.win_type_frequencies),
            ("win_type_payouts", analysis.payouts_by_win_type),
            ("seats", analysis.seat_frequencies),
            ("payouts_seat", analysis.payouts_by_seat),
            ("payouts_role", analysis.payouts_by_role),
        ]:
            assert sec[key] == jsonable(fn(df)), key
        # the fairness tests are the analysis layer's, adjusted over the whole report
        own = jsonable(analysis.fairness_tests(df))
        report_wide = ("p_adj", "adjust", "family", "reject", "verdict", "effect_level",
                       "effect_lo", "effect_hi")  # fmt: skip
        for mine, theirs in zip(sec["fairness"], own, strict=True):
            assert {k: v for k, v in mine.items() if k not in report_wide} == {
                k: v for k, v in theirs.items() if k not in report_wide
            }
            if mine["kind"] == "sanity":  # adjusted apart, as the analysis layer does
                assert {k: mine[k] for k in report_wide[:-1]} == {
                    k: theirs[k] for k in report_wide[:-1]
                }
                continue
            assert mine["family"] == family_size(ctx) and mine["adjust"] == "holm"
            assert mine["p_adj"] is None or mine["p_adj"] >= theirs["p"] - 1e-12
            assert f"over the {family_size(ctx)} tests of this report" in mine["verdict"]
        edge = analysis.dealer_edge(df).iloc[0]
        assert sec["dealer_edge"]["edge"] == pytest.approx(edge["edge"])
        assert sec["dealer_edge"]["edge_sd"] == pytest.approx(edge["edge_sd"])
        assert sec["roles"] == jsonable(analysis.seat_frequencies(df, by="distance"))
        assert sec["swinginess"] == jsonable(analysis.swinginess(df))

        for sw in sec["sweeps"]:
            v = variants.get(n)
            opt = v.option_map[sw["option"]]
            frames = {
                val: df.iloc[: b["sweep"]].reset_index(drop=True)
                if val == opt.default
                else rerun(n, b["sweep"], rules={sw["option"]: val})
                for val in sw["values"]
            }
            # the default's frame is the main run cut short: the same as its own run
            pd.testing.assert_frame_equal(frames[opt.default], rerun(n, b["sweep"]))
            big = [p.name for p in v.patterns if p.big]
            metrics = [m for m in report.SWEEP_METRICS if m != "big_hand_per_win" or big]
            table = analysis.sweep_table(
                frames,
                option=sw["option"],
                baseline=opt.default,
                metrics=metrics,
                big=big or None,
                paired=not opt.changes_deal,
            )
            assert [unadjusted(r) for r in sw["table"]] == [unadjusted(r) for r in jsonable(table)]
            assert sw["baseline"] == opt.default and sw["paired"] == (not opt.changes_deal)

        players = sec["players"]
        for sk in sec["skill"]:
            frames = skill_frames(n, sec, sk)
            table = analysis.skill_edge(frames, seating="dealer")
            assert sk["table"] == jsonable(table)
            (s_se, d_se), (s_n, d_n) = table["se"].to_list(), table["n_deals"].to_list()
            assert s_n * players == pytest.approx(d_n, rel=0.1)  # a match in one seating
            want = s_se**2 * s_n / (d_se**2 * d_n) if d_se > 0 else None
            assert sk["duplicate_gain"] == pytest.approx(want)
            # the side-by-side rates: that rung of the bot ladder on the same runs
            rung = rung_row(frames, sk["strong"], sk["weak"])
            assert sk["rung"] == jsonable(pd.DataFrame([rung]))[0]

    names = ctx["settings"]["variants"]
    mains = {n: rerun(n, ctx["variants"][n]["budget"]["main"]) for n in names}
    panel = analysis.compare_variants(
        mains,
        big={n: [p.name for p in variants.get(n).patterns if p.big] for n in names},
        skill={n: pd.DataFrame(ctx["variants"][n]["skill"][0]["table"]) for n in names},
    )
    assert ctx["panel"] == jsonable(panel)


def test_risk_skill_gain_and_sensitivity_equal_the_analysis(made):
    """The new sections' numbers are the analysis layer's on re-simulated records."""
    from analysis import risk, sensitivity

    out, ctx = made
    fam = ctx["summary"]["family"]
    for n in ctx["settings"]["variants"]:
        sec = ctx["variants"][n]
        b = sec["budget"]
        df = rerun(n, b["main"])
        mt = risk.match_table(df)
        amounts = risk.stated_amounts(n, mt)
        assert sec["risk"]["amounts"] == amounts
        assert sec["risk"]["table"] == jsonable(risk.match_risk(mt, amounts))
        assert sec["risk"]["curve"] == jsonable(risk.loss_curve(mt))
        # the skill gain from the skill runs, clustered by match
        for sk in sec["skill"]:
            edges = risk.seating_match_edges(skill_frames(n, sec, sk), seating="dealer")
            g = risk.skill_gain(edges, cluster=["run_seed", "match"])
            mine = {k: v for k, v in sk["gain"].items() if k != "source"}
            assert mine == jsonable(g)[0]
        # the bot-sensitivity table: the main run under value bots against the report's
        if report.report_policy(variants.get(n)) != "value":
            bt = sweep_table(
                {"value": rerun(n, b["main"], policies="value"), "strong": df},
                option="bot", baseline="value", metrics=list(report.BOT_METRICS),
                level=report.LEVEL, paired=True,
            )  # fmt: skip
            got = [unadjusted(r) for r in sec["bots"]["table"]]
            want = [unadjusted(r) for r in jsonable(bt)]
            assert got == want
            assert sec["bots"]["sweep_effects"], "each sweep's effect under both bots"
            # its value column: each sweep value under value bots on the sweep's own deals
            # (the default's are the value main run's first deals), unadjusted
            for sw in sec["sweeps"]:
                opt = variants.get(n).option_map[sw["option"]]
                big = [p.name for p in variants.get(n).patterns if p.big]
                vf = {
                    val: rerun(n, b["sweep"], rules=None if val == opt.default else
                               {sw["option"]: val}, policies="value")
                    for val in sw["values"]
                }  # fmt: skip
                vt = analysis.sweep_table(
                    vf, option=sw["option"], baseline=opt.default,
                    metrics=[m for m in report.SWEEP_METRICS if m != "big_hand_per_win" or big],
                    big=big or None, paired=not opt.changes_deal,
                )  # fmt: skip
                want = {
                    (str(r["option_value"]), r["metric"]): (r["diff"], r["raw_lo"], r["raw_hi"])
                    for r in map(unadjusted, jsonable(vt))
                    if not r["is_baseline"] and r["metric"] in report.BOT_METRICS
                }
                got = {
                    (str(e["option_value"]), e["metric"]): (
                        e["value"],
                        e["value_lo"],
                        e["value_hi"],
                    )
                    for e in sec["bots"]["sweep_effects"]
                    if e["option"] == sw["option"]
                }
                assert got == want and want
                assert all(e["same_deals"] for e in sec["bots"]["sweep_effects"])
        # the sensitivity table: each value against the main run's first deals
        sv = sec["sensitivity"]
        plan, skipped = sensitivity.option_plan(n)
        assert sv["skipped"] == skipped and sv["deals"] == b["sensitivity"]
        # the screen plays value bots: a play option's value on the value main run's first
        # deals, a payout option's value re-scored from the whole value main run
        from engine.runs import rescore as rs

        v = variants.get(n)
        value_main = rerun(n, b["main"], policies="value")
        base = value_main.iloc[: b["sensitivity"]].reset_index(drop=True)
        first = next(p for p in plan if not v.option_map[p["option"]].payout)
        frame = rerun(n, b["sensitivity"], rules={first["option"]: first["value"]},
                      policies="value")  # fmt: skip
        own = sensitivity.sensitivity_table(base, {(first["option"], first["value"]): frame}, n)
        paid = next(p for p in plan if v.option_map[p["option"]].payout)
        again, _ = rs.rescore_frame(value_main, v, v.resolve(None), {paid["option"]: paid["value"]})
        own_r = sensitivity.sensitivity_table(
            value_main, {(paid["option"], paid["value"]): again}, n,
            screen={(paid["option"], paid["value"]): ("rescored", False)},
        )  # fmt: skip
        for item, want in ((first, own), (paid, own_r)):
            got = [
                unadjusted(r)
                for r in sv["table"]
                if r["option"] == item["option"] and r["option_value"] == want["option_value"][0]
                and r["metric"] != "skill_edge"
            ]  # fmt: skip
            assert got == [unadjusted(r) for r in jsonable(want)]
        assert (
            sv["screen"]["rescore_deals"] == b["main"] and sv["screen"]["deals"] == b["sensitivity"]
        )
        # the skill rows: value over efficiency by place from the dealer, under the confirmed
        # values of play options only, against the defaults' (the skill section's first deals)
        confirmed = {
            (r["option"], str(r["option_value"]))
            for r in (sv.get("confirm") or {}).get("table", [])
            if r["confirmed"] and not v.option_map[r["option"]].payout
        }
        skilled = {(r["option"], r["option_value"]) for r in sv["table"]
                   if r["metric"] == "skill_edge"}  # fmt: skip
        assert skilled == confirmed
        sd = b["sensitivity_skill"]
        assert sv["skill_deals"] == (sd if confirmed else 0)
        for o, x in sorted(confirmed)[:1]:
            key = (o, v.option_map[o].parse(x))
            own_s = sensitivity.skill_rows(
                sensitivity.skill_runs(n, sd, seed=SEED, workers=1),
                {key: sensitivity.skill_runs(n, sd, rules=dict([key]), seed=SEED, workers=1)},
                n,
            )
            got_s = [
                unadjusted(r) for r in sv["table"]
                if r["metric"] == "skill_edge" and (r["option"], r["option_value"]) == (o, x)
            ]  # fmt: skip
            assert got_s == [unadjusted(r) for r in jsonable(own_s)]
        # the words say which values were screened and which played again
        assert any(w.startswith("The table is a screen") for w in sv["recommendations"])
        screen_words = next(w for w in sv["recommendations"] if w.startswith("The table is a"))
        for r in sv["screened_in"]:
            assert f"{r['option']}={r['option_value']}" in screen_words
        assert {(r["option"], r["option_value"]) for r in sv["table"]} == {
            (p["option"], sensitivity._show(p["value"])) for p in plan
        }
        # words: a change is called fairer or less fair (in SD units) only where it is
        # resolved, confirmed on a fresh seed and not flagged by the bot check
        words = ctx["summary"]["recommendations"][n]
        assert words == sv["recommendations"]
        printed = {(c["option"], c["option_value"]) for c in sv["changes"] if c["printed"]}
        claims = " ".join(w for w in words if w.startswith(("To make", "These move")))
        for r in sv["table"]:
            if r["metric"] != "dealer_edge_sd" or r["inert"]:
                continue
            named = f"{r['option']}={r['option_value']} " in claims
            assert named == ((r["option"], r["option_value"]) in printed)
    html = (out / "balance-report.html").read_text(encoding="utf-8")
    md = (out / "balance-report.md").read_text(encoding="utf-8")
    for text in (html, md):
        assert "Bot sensitivity: how much the headlines depend on the bot" in text
        assert "Match risk: what a sitting costs" in text
        assert "Rule sensitivity and recommendations" in text
        assert "What to change to make each variant fairer" in text
        assert "What skill buys" in text
    assert fam in md


def unadjusted(row: dict) -> dict:
    """A tested row without what the report-wide adjustment rewrites: its p_adj, its
    verdict and the interval at the adjusted level (the unadjusted one is compared)."""
    drop = ("p_adj", "adjust", "reject", "diff_level", "diff_lo", "diff_hi", "bot_artifact")
    out = {k: v for k, v in row.items() if k not in drop}
    out["raw_lo"] = row.get("raw_lo", row["diff_lo"])
    out["raw_hi"] = row.get("raw_hi", row["diff_hi"])
    return out


def family_size(ctx) -> int:
    """The tests of a report: fairness findings (not the seat sanity checks), sweep
    differences, the sensitivity tables' skill edges (their screen is a family of its
    own), bot differences and ranking gaps."""
    n = 0
    for sec in ctx["variants"].values():
        n += sum(t["p"] is not None and t["kind"] != "sanity" for t in sec["fairness"])
        n += sum(r["p"] is not None for sw in sec["sweeps"] for r in sw["table"])
        n += sum(r["p"] is not None and r["metric"] == "skill_edge"
                 for r in sec["sensitivity"]["table"])  # fmt: skip
        n += sum(r["p"] is not None for r in (sec.get("bots") or {}).get("table", []))
    for s in ctx["summary"]["senses"]:
        n += sum(g["p"] is not None for g in s["adjacent"])
        n += int("span_test" in s and s["span_test"]["p"] is not None)
    return n


def test_whatif_section_equals_the_rescored_records(made):
    """The what-if tables are whatif_table of the main run's records, the top options by
    their largest move, and the check is a re-simulation of the largest change."""
    from analysis.rescoring import whatif_table
    from engine.runs import rescore as rs

    out, ctx = made
    md = (out / "balance-report.md").read_text(encoding="utf-8")
    for n in ctx["settings"]["variants"]:
        sec = ctx["variants"][n]
        wi = sec["whatif"]
        v = variants.get(n)
        if not rs.payout_keys(v):
            assert wi is None
            continue
        assert wi["all_options"] == list(rs.payout_keys(v))
        df = rerun(n, sec["budget"]["main"])
        df.attrs["mjlab"] = {"variant": n, "rules": v.resolve({}),
                             "policies": [report.report_policy(v)] * sec["players"]}  # fmt: skip
        table = whatif_table(df)
        top = list(dict.fromkeys(table["option"]))[: len(wi["options"])]
        assert [o["option"] for o in wi["options"]] == top
        for o in wi["options"]:
            want = table[table["option"] == o["option"]].drop(columns=["option", "move"])
            assert o["rows"] == jsonable(want)
            assert "**" + o["option"].replace("_", "\\_") + "**" in md  # Markdown-escaped
        ck = wi["check"]
        if ck is not None:
            sim = rerun(n, ck["deals"], rules={ck["option"]: ck["value"]})
            t = analysis.dealer_edge(sim).iloc[0]
            assert ck["simulated"] == pytest.approx(float(t["edge"]), abs=1e-9)
            assert ck["gap_lo"] <= ck["gap"] <= ck["gap_hi"]
        assert "What if it paid differently?" in md


def test_one_holm_family_over_the_whole_report(made):
    from analysis.stats import adjust_pvalues

    _, ctx = made
    raw, adj = [], []
    for sec in ctx["variants"].values():
        for t in sec["fairness"]:
            if t["kind"] != "sanity":  # the seat sanity checks are adjusted apart
                raw.append(t["p"])
                adj.append(t["p_adj"])
        for sw in sec["sweeps"]:
            for r in sw["table"]:
                if r["p"] is not None:
                    raw.append(r["p"])
                    adj.append(r["p_adj"])
        for r in [*sec["sensitivity"]["table"], *(sec.get("bots") or {}).get("table", [])]:
            if r["p"] is not None and r.get("adjust") != "bh":  # the screen apart
                raw.append(r["p"])
                adj.append(r["p_adj"])
    for s in ctx["summary"]["senses"]:
        for g in [*s["adjacent"], *([s["span_test"]] if "span_test" in s else [])]:
            raw.append(g["p"])
            adj.append(g["p_adj"])
    raw = [float("nan") if x is None else x for x in raw]
    want = adjust_pvalues(raw, "holm")
    got = [float("nan") if x is None else x for x in adj]
    assert got == pytest.approx(list(want), nan_ok=True)
    assert ctx["summary"]["family"] == f"the {family_size(ctx)} tests of this report"
    # the sensitivity screen: one Benjamini-Hochberg family over every variant's screen
    screened = [r for sec in ctx["variants"].values() for r in sec["sensitivity"]["table"]
                if r["metric"] != "skill_edge"]  # fmt: skip
    assert all(r["adjust"] == "bh" for r in screened)
    raw = [float("nan") if r["p"] is None else r["p"] for r in screened]
    got = [float("nan") if r["p_adj"] is None else r["p_adj"] for r in screened]
    assert got == pytest.approx(list(adjust_pvalues(raw, "bh")), nan_ok=True)
    family = {sec["sensitivity"]["screen"]["family"] for sec in ctx["variants"].values()}
    assert family == {sum(r["p"] is not None for r in screened)}
    # a seat test is a sanity check, never a finding
    for sec in ctx["variants"].values():
        kinds = {t["test"]: t["kind"] for t in sec["fairness"]}
        assert kinds["seat_win_rates"] == kinds["seat_deltas"] == "sanity"
        for t in sec["fairness"]:
            if t["kind"] == "sanity":
                assert t["verdict"].startswith("engine sanity check")


def test_summary_ranks_the_panel(made):
    _, ctx = made
    summary = ctx["summary"]
    assert summary["senses"][0]["metric"] == "dealer_edge_sd"
    assert summary["headline"] == summary["senses"][0]["sentence"]
    for sense in summary["senses"]:
        rows = {r["label"]: r for r in ctx["panel"] if r["metric"] == sense["metric"]}
        ranking = sense["ranking"]
        assert {e["variant"] for e in ranking} == set(rows)
        for e in ranking:
            assert (e["estimate"], e["lo"], e["hi"]) == tuple(
                rows[e["variant"]][k] for k in ("estimate", "lo", "hi")
            )
        score = [abs(e["estimate"]) if sense["better"] == "abs" else e["estimate"] for e in ranking]
        assert score == sorted(score, reverse=sense["better"] == "high")
        if len(ranking) > 1:
            assert sense["gap_lo"] <= sense["gap"] <= sense["gap_hi"]
            # an order is claimed only across a resolved gap; otherwise the ranks tie
            for k in range(1, len(ranking)):
                g = sense["adjacent"][k - 1]
                resolved = g["p_adj"] is not None and g["p_adj"] < report.ALPHA
                assert (ranking[k]["rank"] > ranking[k - 1]["rank"]) == resolved
            top = [e for e in ranking if e["rank"] == 1]
            if len(top) > 1:
                assert "tied between" in sense["sentence"] and sense["best"] is None
        assert "seat_spread_sd" not in {s["metric"] for s in summary["senses"]}


def test_html_and_markdown_show_the_context(made):
    out, ctx = made
    html = (out / "balance-report.html").read_text(encoding="utf-8")
    md = (out / "balance-report.md").read_text(encoding="utf-8")
    from html import escape

    assert escape(ctx["summary"]["headline"], quote=False) in html
    assert "http://" not in html.replace("http://www.w3.org", "") and "https://" not in html
    assert html.count("<img ") == html.count('src="data:image/png;base64,')
    for n in ctx["settings"]["variants"]:
        sec = ctx["variants"][n]
        assert sec["rules_id"] in html and sec["rules_id"] in md
        for t in sec["fairness"]:
            assert str(markupsafe.escape(t["verdict"])) in html  # as Jinja escapes it
        for o in sec["rules"]:
            assert f"<code>{escape(o['key'])}</code>" in html
    for fig in (out / report.FIGURES_DIR).iterdir():
        assert f"({report.FIGURES_DIR}/{fig.name})" in md
    for section in ("## Summary", "## Cross-variant comparison", "## Methods", "## Caveats"):
        assert section in md
    assert ctx["generated"]["package_version"] in html


def test_every_rule_link_resolves_to_an_anchor_of_the_shipped_reference(made):
    """Each rule citation links a page of ``rules/`` beside the report (written from the
    package, engine.runs.rulesdoc) and an anchor that page defines; nothing outside the folder.
    """
    import re

    from engine.runs import rulesdoc

    out, ctx = made
    html = (out / "balance-report.html").read_text(encoding="utf-8")
    md = (out / "balance-report.md").read_text(encoding="utf-8")
    links = {
        "html": re.findall(r'href="([^"#]+)#([^"]+)"', html),
        "md": re.findall(r"\]\((rules/[^)#]+)#([^)]+)\)", md),
    }
    for fmt, found in links.items():
        pages = {p for p, _ in found}
        assert pages == {f"rules/{n}.{fmt}" for n in ctx["settings"]["variants"]}, fmt
        for page, anchor in found:
            assert ".." not in page and not page.startswith("/")
            assert anchor in rulesdoc.anchors((out / page).read_text(encoding="utf-8")), (
                page,
                anchor,
            )
        for n in ctx["settings"]["variants"]:  # every option row links its own entry
            for o in ctx["variants"][n]["rules"]:
                assert (f"rules/{n}.{fmt}", rulesdoc.option_anchor(o["key"])) in found
    assert "shared/rules" not in html + md
    assert ctx["rulebook"]["reference"] == "rules/index.html"
    assert (out / ctx["rulebook"]["reference"]).is_file()


def test_json_is_strict_and_complete(made):
    out, ctx = made
    text = (out / "balance-report.json").read_text(encoding="utf-8")
    json.loads(text, parse_constant=lambda c: pytest.fail(f"non-strict JSON constant {c}"))
    for key in ("title", "generated", "settings", "summary", "panel", "variants", "methods"):
        assert key in ctx
    assert ctx["methods"]["intervals"] and ctx["caveats"]
    assert any("Bots are not people" in c for c in ctx["caveats"])


HOSTILE = '<script>alert("x")</script><img src=x onerror=alert(1)> | **bold** [a](http://e.x)'


def test_hostile_strings_are_escaped(made, tmp_path):
    ctx = trimmed(made[1])
    n = ctx["settings"]["variants"][0]
    sec = ctx["variants"][n]
    sec["long_name"] = HOSTILE
    sec["rules"][0]["doc"] = HOSTILE
    sec["pattern_info"][0]["hanzi"] = HOSTILE
    sec["fairness"][0]["verdict"] = HOSTILE
    ctx["caveats"].append(HOSTILE)
    ctx["summary"]["headline"] = HOSTILE
    ctx["skipped"].append({"variant": HOSTILE, "what": HOSTILE, "reason": HOSTILE})
    paths = report.render(ctx, tmp_path)
    html = paths["html"].read_text(encoding="utf-8")
    assert "<script" not in html and "onerror=alert" not in html.replace("onerror=alert(1)&gt;", "")
    assert "&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt;" in html
    md = paths["md"].read_text(encoding="utf-8")
    assert "<script" not in md and "<img" not in md
    assert "[a](http://e.x)" not in md and r"\[a\](http://e.x)" in md
    assert r"\*\*bold\*\*" in md and r"\|" in md
    assert json.loads(paths["json"].read_text(encoding="utf-8"))["caveats"][-1] == HOSTILE


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--variants", "nosuch"], "unknown variant 'nosuch'"),
        (["--variants", "tuidaohu,nosuch"], "unknown variant 'nosuch'"),
        (["--variants", ","], "name at least one variant"),
        (["--deals", "31"], "--deals 31 is too few"),
        (["--deals", "0"], "too few"),
        (["--seed", "-1"], "--seed"),
        (["--workers", "0"], "--workers"),
        (["--precision", "0"], "--precision 0.0 must be above 0"),
        (["--precision", "nan"], "must be above 0"),
        (["--precision", "0.1", "--deals", "64"], "not both"),
    ],
)
def test_bad_input_exits_2_and_writes_nothing(argv, message, tmp_path, capsys):
    out = tmp_path / "out"
    assert main(["report", *argv, "--out", str(out), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1 and "Traceback" not in err
    assert not out.exists() and list(tmp_path.iterdir()) == []


def test_unwritable_folder_exits_2(tmp_path, capsys):
    blocker = tmp_path / "a-file"
    blocker.write_text("x")
    for out in (blocker, blocker / "sub"):
        code = main(["report", "--variants", "tuidaohu", "--deals", "32", "--out", str(out)])
        err = capsys.readouterr().err
        assert code == 2 and "--out" in err and err.count("\n") == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a-file"]
    assert blocker.read_text() == "x"


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes to read-only folders (issue 9)")
def test_read_only_folder_exits_1(tmp_path, capsys):
    ro = tmp_path / "ro"
    ro.mkdir()
    ro.chmod(0o555)
    try:  # the environment's fault, not the input's (issue 46)
        assert main(["report", "--deals", "32", "--out", str(ro / "out")]) == 1
        assert "Permission denied" in capsys.readouterr().err
    finally:
        ro.chmod(0o755)


def test_build_report_rejects_bad_input():
    with pytest.raises(UsageError, match="unknown variant"):
        report.build_report(variants=["nosuch"], deals=64, progress=False)
    with pytest.raises(UsageError, match="too few"):
        report.build_report(variants=["tuidaohu"], deals=report.MIN_DEALS - 1, progress=False)
    with pytest.raises(UsageError, match="integer"):
        report.build_report(variants=["tuidaohu"], deals=64.5, progress=False)


def test_writes_are_atomic(made, tmp_path, monkeypatch):
    ctx = trimmed(made[1])
    first = report.render(ctx, tmp_path)
    before = {k: first[k].read_bytes() for k in ("html", "md", "json")}
    renames = []
    real = os.replace

    def replace(src, dst):
        renames.append((Path(src), Path(dst)))
        if Path(dst).name == "balance-report.json":
            raise OSError("disk full")
        real(src, dst)

    monkeypatch.setattr(os, "replace", replace)
    changed = json.loads(json.dumps(ctx))
    changed["caveats"].append("a new caveat")
    with pytest.raises(OSError, match="disk full"):
        report.render(changed, tmp_path)
    # every file went through a temporary name in the same folder
    assert renames and all(s != d and s.parent == d.parent for s, d in renames)
    assert all(s.name.startswith(".") and s.name.endswith(".tmp") for s, _ in renames)
    # the failed JSON left the previous complete file and no temporary file behind
    assert first["json"].read_bytes() == before["json"]
    assert not [p for p in tmp_path.rglob("*") if p.name.endswith(".tmp")]


def test_budgets_and_sweep_plans():
    declared = report.default_budgets()
    assert set(declared) == set(variants.listed())  # every listed variant declares one
    for b in [*declared.values(), report.FALLBACK_BUDGET]:
        for deals in (b.main, b.sweep, b.skill, b.sensitivity, b.sensitivity_skill, b.whatif_check):
            assert deals >= report.MIN_DEALS and deals % report.MATCH_LENGTH == 0
        assert b.whatif_check <= b.main  # its pair is the main run's first deals
        assert b.main >= b.sweep and b.main >= b.sensitivity  # both reuse the main run
        assert b.skill >= b.sensitivity_skill  # the table's defaults reuse the skill runs
    for n, b in declared.items():
        assert report.budget_for(n) is b is variants.get(n).report_budget
    assert report.budget_for("tuidaohu", 1000) == report.ReportBudget(
        1000, 500, 500, 500, 250, 250, confirm=250, audit=200
    )
    assert report.budget_for("tuidaohu", 40) == report.ReportBudget(40, 32, 32, 32, 32, 32, 32, 32)
    assert report.budget_for("tiny") == report.FALLBACK_BUDGET  # declares none

    specs = {
        "tuidaohu": (
            variants.HeadlineSweep(("nosuch_key",), "a missing option"),
            variants.HeadlineSweep(("horses",), "horses", ("2", "99", "0")),
        )
    }
    plans, skipped = report.plan_sweeps(["tuidaohu"], specs)
    assert [s["variant"] for s in skipped] == ["tuidaohu"]
    assert "no option nosuch_key" in skipped[0]["reason"]
    default = variants.get("tuidaohu").option_map["horses"].default
    assert plans == [
        {
            "variant": "tuidaohu",
            "option": "horses",
            "title": "horses",
            "values": [default, "2", "0"],
        }
    ]
    # the declared sweeps, in each variant's order
    got = [(p["variant"], p["option"]) for p in report.plan_sweeps(variants.listed())[0]]
    want = [
        (n, next(k for k in s.keys if k in variants.get(n).option_map))
        for n in variants.listed()
        for s in variants.get(n).headline_sweeps
    ]
    assert got == want and ("tuidaohu", "horses") in got


def test_skipped_sweeps_are_noted_in_the_report(made, tmp_path):
    ctx = trimmed(made[1])
    ctx["skipped"] = [{"variant": "luodisao", "what": "王 count sweep", "reason": "not registered"}]
    html = report.render(ctx, tmp_path)["html"].read_text(encoding="utf-8")
    assert "Not in this report" in html and "luodisao" in html


def test_module_doctests():
    assert doctest.testmod(report, raise_on_error=False).failed == 0


# --- the figure cache ----------------------------------------------------------------------


def _figure_bytes(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted((folder / report.FIGURES_DIR).iterdir())}


def test_figure_cache_gives_the_drawn_bytes_and_draws_only_what_changed(
    made, tmp_path, monkeypatch
):
    """A render reuses the figures drawn before from the same data, byte for byte; a
    changed number draws its figure anew, and only that one."""
    monkeypatch.setenv("MJLAB_CACHE_DIR", str(tmp_path / "cache"))
    ctx = trimmed(made[1])
    report.render(ctx, tmp_path / "drawn", figure_cache=False)
    drawn = _figure_bytes(tmp_path / "drawn")
    n_figures = report._n_figures(ctx)
    assert len(drawn) == n_figures >= 3 and not (tmp_path / "cache").exists()
    report.render(ctx, tmp_path / "first")
    assert _figure_bytes(tmp_path / "first") == drawn
    cached = sorted((tmp_path / "cache" / report.FIGURE_CACHE).iterdir())
    assert len(cached) == n_figures

    from matplotlib.backends.backend_agg import FigureCanvasAgg

    saved = []  # figures drawn
    real = FigureCanvasAgg.draw

    def counting(self, *args, **kwargs):
        saved.append(self.figure)
        return real(self, *args, **kwargs)

    monkeypatch.setattr(FigureCanvasAgg, "draw", counting)
    report.render(ctx, tmp_path / "again")
    assert saved == [] and _figure_bytes(tmp_path / "again") == drawn
    for name in report.FILES:
        assert (tmp_path / "again" / name).read_bytes() == (tmp_path / "drawn" / name).read_bytes()

    changed = json.loads(json.dumps(ctx))
    name = changed["settings"]["variants"][0]
    wins = [r for r in changed["variants"][name]["patterns"] if r["per"] == "win"]
    row = max(wins, key=lambda r: r["rate"])
    assert row["rate"] > 0
    row["rate"] = row["lo"] = row["rate"] / 2
    report.render(changed, tmp_path / "changed")
    assert len(saved) == 1
    now = _figure_bytes(tmp_path / "changed")
    assert now[f"{name}-patterns.png"] != drawn[f"{name}-patterns.png"]
    assert {k: v for k, v in now.items() if "patterns" not in k} == {
        k: v for k, v in drawn.items() if "patterns" not in k
    }


def test_figure_cache_ignores_a_damaged_or_foreign_file(made, tmp_path, monkeypatch):
    """A cached figure whose bytes fail their checksum, or that others may write, is not
    used: the figure is drawn again (and the cache file rewritten)."""
    monkeypatch.setenv("MJLAB_CACHE_DIR", str(tmp_path / "cache"))
    ctx = trimmed(made[1])
    report.render(ctx, tmp_path / "first")
    drawn = _figure_bytes(tmp_path / "first")
    files = sorted((tmp_path / "cache" / report.FIGURE_CACHE).iterdir())
    damaged, foreign = files[0], files[1]
    raw = bytearray(damaged.read_bytes())
    raw[-20] ^= 0xFF
    damaged.write_bytes(bytes(raw))
    foreign.chmod(0o666)  # intact, but anyone may now change it
    assert foreign.read_bytes().startswith(report._FIGURE_MAGIC)
    report.render(ctx, tmp_path / "again")
    assert _figure_bytes(tmp_path / "again") == drawn
    assert damaged.read_bytes() != bytes(raw) and not foreign.stat().st_mode & 0o022


def test_templates_are_compiled_once_and_reused(made, tmp_path, monkeypatch):
    """A render loads the templates Jinja2 compiled for the one before (from the cache
    folder) and writes the same files; a compiled template others may write is not
    loaded (it is compiled again, and its file rewritten)."""
    import importlib

    import jinja2

    folder = tmp_path / "cache" / importlib.import_module("analysis.report.render").TEMPLATE_CACHE
    monkeypatch.setenv("MJLAB_CACHE_DIR", str(tmp_path / "cache"))
    ctx = trimmed(made[1])
    compiled = []
    real = jinja2.Environment.compile

    def counting(self, source, name=None, *args, **kwargs):
        compiled.append(name)
        return real(self, source, name, *args, **kwargs)

    monkeypatch.setattr(jinja2.Environment, "compile", counting)
    report.render(ctx, tmp_path / "first")
    assert sorted(compiled) == ["report.html.j2", "report.md.j2"]
    files = sorted(folder.iterdir())
    assert len(files) == 2 and all(not f.stat().st_mode & 0o077 for f in files)
    report.render(ctx, tmp_path / "again")
    assert len(compiled) == 2
    for name in report.FILES:
        assert (tmp_path / "again" / name).read_bytes() == (tmp_path / "first" / name).read_bytes()
    files[0].chmod(0o666)
    report.render(ctx, tmp_path / "third")
    assert len(compiled) == 3 and not files[0].stat().st_mode & 0o022
    report.render(ctx, tmp_path / "off", figure_cache=False)
    assert len(compiled) == 5


def test_figure_cache_keeps_the_most_recent(tmp_path, monkeypatch):
    monkeypatch.setenv("MJLAB_CACHE_DIR", str(tmp_path))
    cache = report._FigureCache()
    for i in range(5):
        cache.put(f"k{i}", b"png %d" % i)
        os.utime(cache.folder / f"k{i}.png", (i, i))
    assert cache.get("k1") == b"png 1"  # a hit counts as a use
    cache.prune(keep=3)
    assert sorted(p.stem for p in cache.folder.iterdir()) == ["k1", "k3", "k4"]
    assert cache.get("k0") is None and cache.hits == 1


def test_figure_cache_key_follows_the_matplotlib_settings(tmp_path, monkeypatch):
    """A setting outside the style file (a user's matplotlibrc) draws figures anew."""
    import matplotlib

    monkeypatch.setenv("MJLAB_CACHE_DIR", str(tmp_path))
    data = [{"x": 1.0}]
    plain = report._FigureCache().key("f", "caption", data)
    assert plain == report._FigureCache().key("f", "caption", data)
    assert plain != report._FigureCache().key("f", "caption", [{"x": 2.0}])
    with matplotlib.rc_context({"hatch.linewidth": 3.0}):
        assert report._FigureCache().key("f", "caption", data) != plain


def _excludes_zero(lo, hi) -> bool:
    return lo is not None and hi is not None and (lo > 0 or hi < 0)


def test_every_interval_agrees_with_its_verdict(made):
    """Issue 45.2: every tested row's interval excludes 0 exactly when its verdict says
    resolved (the interval at the level of its adjusted test), in every table of the
    report's JSON; the words claim a match count only for a resolved skill edge."""
    _, ctx = made
    alpha = report.ALPHA
    checked = 0

    def check(rows, lo="diff_lo", hi="diff_hi"):
        nonlocal checked
        for r in rows:
            if r.get("p_adj") is None or r.get(lo) is None:
                continue
            resolved = r["p_adj"] < alpha
            assert _excludes_zero(r[lo], r[hi]) == resolved, r
            checked += 1

    for sec in ctx["variants"].values():
        for sw in sec["sweeps"]:
            check(sw["table"])
        sv = sec["sensitivity"]
        check(sv["table"])
        check(sv["ranking"])
        check((sec.get("bots") or {}).get("table", []))
        if sv.get("confirm"):
            check(sv["confirm"]["table"])
            for r in sv["confirm"]["table"]:
                assert r["reject"] == (r["p_adj"] < alpha)
        for t in sec["fairness"]:
            if t["test"] == "dealer_edge":
                assert _excludes_zero(t["effect_lo"], t["effect_hi"]) == t["reject"], t
                checked += 1
            if t["test"] == "dealer_equivalence" and t["effect_lo"] is not None:
                inside = -t["margin"] < t["effect_lo"] and t["effect_hi"] < t["margin"]
                assert inside == t["reject"], t
        for sk in sec["skill"]:
            for r in sk["table"]:
                claims = "finishes ahead" in r["verdict"]
                assert claims == (r["lo"] > 0 and r["matches"] is not None), r
            g = sk["gain"]
            if g is not None:
                assert ("is ahead" in g["verdict"]) == (g["lo"] > 0 and g["matches"] is not None)
        box = ctx["summary"]["boxes"][sec["name"]]
        f = box["fairness"]
        assert _excludes_zero(f["lo"], f["hi"]) == f["resolved"]
        if box["skill"] is not None:
            k = box["skill"]
            assert k["resolved"] == (k["lo"] > 0) and (k["matches"] is None or k["resolved"])
    for s in ctx["summary"]["senses"]:
        check([*s["adjacent"], *([s["span_test"]] if "span_test" in s else [])], "gap_lo", "gap_hi")
    assert checked > 50


def test_every_recommendation_recomputed_in_sd_units(made):
    """Issue 45.1: each change the report confirmed is played again here (the report's
    bots, the confirmation seed); its dealer edge in SD units is recomputed from the
    records, and every recommendation's sign and direction must agree with it."""
    from analysis.recommend import direction

    _, ctx = made
    seen = 0
    for n in ctx["settings"]["variants"]:
        sv = ctx["variants"][n]["sensitivity"]
        cf = sv.get("confirm")
        assert cf is not None and cf["seed"] != ctx["settings"]["seed"]
        v = variants.get(n)
        base = simulate(n, cf["deals"], seed=cf["seed"], policies=cf["policies"], workers=1,
                        progress=False).to_pandas()  # fmt: skip
        fresh = {}
        for r in cf["table"]:
            opt = v.option_map[r["option"]]
            f = simulate(n, cf["deals"], seed=cf["seed"], policies=cf["policies"], workers=1,
                         rules={opt.key: opt.parse(r["option_value"])},
                         progress=False).to_pandas()  # fmt: skip
            t = sweep_table({"d": base, "c": f}, option=opt.key, baseline="d",
                            metrics=["dealer_edge_sd"], paired=not opt.changes_deal)  # fmt: skip
            row = t[~t["is_baseline"]].iloc[0]
            assert row["diff"] == pytest.approx(r["diff"], rel=1e-9, abs=1e-12)
            fresh[(r["option"], r["option_value"])] = (t, row)
            seen += 1
        words = " ".join(sv["recommendations"])
        for c in sv["changes"]:
            if not c["printed"]:
                continue
            t, row = fresh[(c["option"], c["option_value"])]
            b = t[t["is_baseline"]].iloc[0]
            assert (row["diff"] > 0) == (c["diff"] > 0), c  # the sign agrees
            fr = c["fresh"]
            again = direction(b["estimate"], b["lo"], b["hi"], fr["diff_lo"], fr["diff_hi"])
            assert c["direction"] == again
            verb = "raises" if c["diff"] > 0 else "lowers"
            assert f"{c['option']}={c['option_value']} {verb} " in words
    assert seen > 0, "no change was confirmed: the test would check nothing"


def test_the_bot_guard_flags_sweep_values_as_possible_bot_artifacts(made, tmp_path, monkeypatch):
    """Issue 44.3: every headline sweep value the report's strong bots played is checked by
    the bot guard at the sweep's own N; a value it flags is marked a possible bot artifact
    in the JSON and the HTML, not shown as a plain finding."""
    from types import SimpleNamespace

    import analysis.guard as guard
    from analysis.report import data

    _, ctx = made
    for n in ctx["settings"]["variants"]:
        sec = ctx["variants"][n]
        strong = report.report_policy(variants.get(n)) == "strong"
        for sw in sec["sweeps"]:
            if strong:
                assert [g["option_value"] for g in sw["guard"]] == [
                    x for x in sw["values"] if x != sw["baseline"]
                ]
                assert all("bot_artifact" in r for r in sw["table"])
        cf = sec["sensitivity"].get("confirm")
        if strong and cf and cf["table"]:
            keys = {(r["option"], r["option_value"]) for r in cf["table"]}
            assert {(g["option"], g["option_value"]) for g in sec["sensitivity"]["guard"]} == keys
    calls = []

    def fake(variant, settings, deals, seed=0, workers=None, level=0.95, played=None, base=None,
             keep=None):  # fmt: skip
        calls.append((variant, deals, len(settings), sorted(played), sorted(base)))
        for i, s in enumerate(settings):
            keep[i] = {"strong": played[i]["strong"], "value": ("value", str(s))}
        return pd.DataFrame({"setting": [str(s) for s in settings], "flag": True,
                             "why": "value beats strong"})  # fmt: skip

    monkeypatch.setattr(guard, "bot_guard", fake)
    name = ctx["settings"]["variants"][0]
    sweeps = json.loads(json.dumps(ctx["variants"][name]["sweeps"]))
    v = variants.get(name)
    plan = SimpleNamespace(
        names=[name], bots={name: "strong"}, vobj={name: v}, seed=SEED, workers=1,
        budgets={name: report.budget_for(name, N)},
    )  # fmt: skip
    played = {name: {(sw["option"], x): object() for sw in sweeps for x in sw["values"]}}
    value_main = pd.DataFrame({"deal": range(N)})
    mains = SimpleNamespace(strong={name: "S"}, value={name: value_main})
    effects = []

    marker = [{"option_value": "x", "metric": "m", "diff": 0.0, "lo": 0.0, "hi": 0.0}]

    def fake_effects(v, sw, frames):
        effects.append((sw["option"], frames))
        return marker

    monkeypatch.setattr(data, "_value_effects", fake_effects)
    values = data._guard_sweeps(plan, mains, {name: sweeps}, played, False)
    # the value column of the bot sensitivity: the check's value runs and the value main
    # run's first deals, at the sweep's own N
    for (opt, frames), sw in zip(effects, sweeps, strict=True):
        assert opt == sw["option"] and sorted(map(str, frames)) == sorted(map(str, sw["values"]))
        assert frames[sw["baseline"]].equals(value_main.iloc[: N // 2])
        assert sw["value_effects"] == marker
    assert [c[1] for c in calls] == [N // 2] * len(sweeps)  # the sweep's own N
    # the value runs it played, by (option, value), for the sensitivity screen
    assert values == {
        name: {
            (sw["option"], x): ("value", str({sw["option"]: x}))
            for sw in sweeps
            for x in sw["values"]
            if x != sw["baseline"]
        }
    }
    assert all(c[4] == ["strong", "value"] for c in calls)  # the main runs' first deals
    for sw in sweeps:
        for r in sw["table"]:
            flagged = r["option_value"] != sw["baseline"]
            assert (r["bot_artifact"] == "value beats strong") == flagged
    ctx2 = trimmed(ctx)
    ctx2["variants"][name]["sweeps"] = sweeps
    report.render(ctx2, tmp_path / "flagged")
    html = (tmp_path / "flagged" / "balance-report.html").read_text(encoding="utf-8")
    assert 'class="artifact"' in html and "possible bot artifact" in html
    # the Markdown says it too: the check's sentence and each flagged row
    md = (tmp_path / "flagged" / "balance-report.md").read_text(encoding="utf-8")
    sw = sweeps[0]
    x = next(x for x in sw["values"] if x != sw["baseline"])
    shown = str(x).lower() if isinstance(x, bool) else x
    assert f"{sw['option']}={shown} is a **possible bot artifact** (value beats strong)" in md
    assert md.count("(possible bot artifact) |") >= len(sw["values"]) - 1


def test_methods_show_the_decision_audit_and_the_bots_are_named(made):
    """Issue 44.5: the methods show each variant's decision audit for the report's bots,
    each rate with its interval; the sensitivity words name the bots they played."""
    out, ctx = made
    html = (out / "balance-report.html").read_text(encoding="utf-8")
    for n in ctx["settings"]["variants"]:
        sec = ctx["variants"][n]
        au = sec["audit"]
        assert au["policy"] == report.report_policy(variants.get(n))
        assert au["deals"] == sec["budget"]["audit"] and au["table"]
        for r in au["table"]:
            assert r["lo"] <= r["rate"] <= r["hi"]
        assert f'id="audit-{n}"' in html and au["command"] in html
        assert sec["sensitivity"]["recommendations"][0].startswith("With value bots")
        # every figure names the bots and the rules it played (issue 45.3)
        pols = ",".join(dict.fromkeys(sec["policies"]))
        assert f"Bots: {pols}; rules_id {sec['rules_id']}" in html
        assert f"Bots: value; rules_id {sec['rules_id']}" in html  # the sensitivity figure
    assert "Decision audit" in html
    # issue 45: 汉字 beside the pinyin of roles and patterns; each variant's advice a list
    # of sentences, not one paragraph of tokens
    assert "<code>dealer</code> 庄家" in html and "<code>xiajia</code> 下家" in html
    v = variants.get(ctx["settings"]["variants"][0])
    assert any(p.hanzi and f"<td>{p.hanzi}</td>" in html for p in v.patterns)
    recs = html.split('id="recommendations"')[1].split("</details>")[0]
    for n in ctx["settings"]["variants"]:
        assert recs.count("<li>") >= len(ctx["summary"]["recommendations"][n])


def test_only_values_that_could_matter_are_played_again_on_a_fresh_seed(monkeypatch):
    """The second stage: the values the screen passed, or within the interval of the
    largest change, are played at full size on a seed the report's runs never use; the
    skill edge is measured under the confirmed values of play options only."""
    from analysis import recommend
    from analysis import sensitivity as sens
    from analysis.report import data, text

    v = variants.get("tuidaohu")
    e0 = {"baseline_estimate": 0.1, "baseline_lo": 0.08, "baseline_hi": 0.12}

    def row(option, value, d, lo, hi, p_adj, inert=False):
        return {"option": option, "option_value": value, "metric": sens.FAIR_METRIC,
                "paired": True, "inert": inert, "diff": d, "diff_lo": lo, "diff_hi": hi,
                "p_adj": p_adj, **e0}  # fmt: skip

    table = [
        row("horses", "0", -0.05, -0.07, -0.03, 0.001),  # passed the screen: fairer
        row("pay_zimo", "1", -0.04, -0.06, -0.02, 0.002),  # passed, a payout option
        row("horses", "1", -0.045, -0.09, 0.0, 0.2),  # not passed, near the largest
        row("horses", "2", 0.001, -0.02, 0.02, 0.9),  # neither: never played again
        row("pay_zimo", "3", 0.0, 0.0, 0.0, None, inert=True),
    ]
    sens_entry = {"table": table, "deals": 64, "screen": {
        "q": 0.05, "simulated": 3, "deals": 64, "rescored": 2, "rescore_deals": 256,
        "exact": False, "policies": "value", "family": 20}}  # fmt: skip
    budget = report.ReportBudget(
        256, 64, 64, 64, sensitivity_skill=64, whatif_check=0, confirm=128, audit=0
    )
    plan = data._ReportPlan(["tuidaohu"], {"tuidaohu": v}, {"tuidaohu": budget},
                            {"tuidaohu": "value"}, [], [], None, 7, 1)  # fmt: skip
    calls, skill = [], []

    def confirm(variant, pick, k, *, seed, **kw):
        calls.append((sorted(zip(pick["option"], pick["option_value"], strict=True)), k, seed))
        ok = {("horses", "0"), ("pay_zimo", "1")}
        t = pd.DataFrame(
            [
                {
                    "option": o,
                    "option_value": x,
                    "confirmed": (o, x) in ok,
                    "diff": -0.05,
                    "diff_lo": -0.06,
                    "diff_hi": -0.04,
                }
                for o, x in zip(pick["option"], pick["option_value"], strict=True)
            ]
        )
        return {"table": t, "frames": {}, "base": None}  # fmt: skip

    def skill_table(name, keys, deals, **kw):
        skill.append((name, list(keys), deals, kw["seed"]))
        return pd.DataFrame(columns=sens._COLS)

    monkeypatch.setattr(recommend, "confirm_changes", confirm)
    monkeypatch.setattr(sens, "skill_table", skill_table)
    data._confirm_changes(plan, {"tuidaohu": sens_entry}, {}, False)
    [(played, k, seed)] = calls
    assert played == [("horses", "0"), ("horses", "1"), ("pay_zimo", "1")]
    assert k == budget.confirm and seed == plan.seed + recommend.CONFIRM_SEED != plan.seed
    ins = {(r["option"], r["option_value"]): r for r in sens_entry["screened_in"]}
    assert set(ins) == set(played) and all(r["played"] for r in ins.values())
    assert ins[("horses", "0")]["resolved"] and not ins[("horses", "1")]["resolved"]
    horses = v.option_map["horses"].parse("0")
    assert skill == [("tuidaohu", [("horses", horses)], budget.sensitivity_skill, plan.seed)]
    # the words say what was screened, what was played again and what was confirmed
    words = text._screen_words(sens_entry)
    assert "2 values of payout options re-scored from the 256 deals" in words
    assert "first-order" in words and "false-discovery rate at 0.05" in words
    assert "3 could matter" in words and "horses=2" not in words
    assert "128 deals each" in words and "confirmed: horses=0, pay_zimo=1." in words


def test_precision_sizes_each_stage_from_its_pilot(monkeypatch, tmp_path):
    """--precision: pilots of PILOT_DEALS deals measure each headline interval, and each
    stage plays the deals that bring the widest of its intervals to the target; the
    report gives the half-widths reached."""
    from analysis.fairness import dealer_edge
    from analysis.report import data

    pilot, target = 320, 0.3
    monkeypatch.setattr(data, "PILOT_DEALS", pilot)
    ctx = report.build_report(variants=["tuidaohu"], seed=SEED, precision=target,
                              progress=False, workers=1)  # fmt: skip
    pr = ctx["summary"]["precision"]
    assert pr["target"] == target and pr["level"] == report.LEVEL
    got = pr["variants"]["tuidaohu"]
    sizing = got["sizing"]
    assert sizing["pilot"] == pilot
    # the main pilot's half-width, from the pilot run itself
    de = dealer_edge(analysis.Summary.from_records(rerun("tuidaohu", pilot))).iloc[0]
    assert sizing["half"]["main"] == pytest.approx((de["hi"] - de["lo"]) / 2 / de["sd"])
    declared = variants.get("tuidaohu").report_budget
    for stage, half in sizing["half"].items():
        want = min(report.deals_for_precision(pilot, half, target),
                   report.PRECISION_CAP * getattr(declared, stage))  # fmt: skip
        assert sizing["deals"][stage] == want
    b = ctx["variants"]["tuidaohu"]["budget"]
    assert b["main"] == max(sizing["deals"]["main"], sizing["deals"]["sweep"])
    assert b["sweep"] == sizing["deals"]["sweep"] and b["skill"] == sizing["deals"]["skill"]
    assert b["sensitivity"] <= b["main"] and b["sensitivity_skill"] <= b["skill"]
    # the half-widths reached, from the report's own intervals
    sec = ctx["variants"]["tuidaohu"]
    e = sec["dealer_edge"]
    assert got["dealer_edge"] == pytest.approx((e["hi"] - e["lo"]) / 2 / e["sd"])
    assert got["sweep"] is not None and got["skill"] is not None
    md = report.render(ctx, tmp_path)["md"].read_text(encoding="utf-8")
    assert f"--precision {target}: each variant's main run" in md
    assert f"tuidaohu dealer edge ±{got['dealer_edge']:.3f}" in md


def test_deals_for_precision_scales_with_the_square_of_the_width():
    assert report.deals_for_precision(3200, 0.02, 0.01) == 4 * 3200
    assert report.deals_for_precision(3200, 0.01, 0.02) == 800
    assert report.deals_for_precision(100, 0.0101, 0.01) % report.MATCH_LENGTH == 0
    assert report.deals_for_precision(100, 0.0101, 0.01) >= 100 * 1.0201
    assert report.deals_for_precision(3200, 0.0, 0.01) == report.MIN_DEALS


def test_every_play_setting_the_report_plays_has_a_committed_refit():
    """The default report plays each value of its headline sweeps and of the sensitivity
    table; where a value changes play, the strong models are the committed refit's
    (``mjlab fit VARIANT --rule K=V``), not fitted at run time."""
    from analysis import sensitivity as sens
    from analysis.report import plan_sweeps
    from engine.runs import adapt

    names = [n for n in variants.names() if n != "tiny"]
    plans, _ = plan_sweeps(names)
    missing = []
    for n in names:
        v = variants.get(n)
        settings = [{p["option"]: p["value"]} for p in sens.option_plan(n)[0]]
        settings += [{p["option"]: x} for p in plans if p["variant"] == n for x in p["values"]]
        for s in settings:
            r = v.resolve(s)
            if adapt.changes_play(v, r) and not adapt.refit_path(v, r).exists():
                ((key, value),) = s.items()
                missing.append(f"mjlab fit {n} --rule {key}={value}")
    assert not missing, missing
