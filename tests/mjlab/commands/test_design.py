"""Rule search (``mjlab design``) and the ``mjlab rescore`` command (issue 22)."""

from __future__ import annotations

import json
import shutil

import numpy as np
import pandas as pd
import pytest

import analysis
import engine
from analysis import rule_search as dz
from engine.errors import UsageError
from mjlab.cli import main


def test_parse_constraint():
    c = dz.parse_constraint("|dealer_edge| <= 0.02")
    assert c == {
        "text": "|dealer_edge| <= 0.02",
        "metric": "dealer_edge",
        "abs": True,
        "op": "<=",
        "value": 0.02,
    }
    assert dz.parse_constraint("flow>=5")["op"] == ">="
    for bad in ("dealer_edge", "edge<=1", "flow=>3", "flow<=x", ""):
        with pytest.raises(UsageError):
            dz.parse_constraint(bad)


@pytest.mark.parametrize(
    ("text", "interval", "want"),
    [
        ("dealer_edge<=0.2", (0.1, 0.05, 0.15), "meets"),
        ("dealer_edge<=0.2", (0.3, 0.25, 0.35), "fails"),
        ("dealer_edge<=0.2", (0.2, 0.15, 0.25), "undecided"),
        ("flow>=5", (6, 5.5, 6.5), "meets"),
        ("flow>=5", (4, 3.5, 4.5), "fails"),
        ("|dealer_edge|<=0.1", (-0.05, -0.08, -0.02), "meets"),
        ("|dealer_edge|<=0.1", (-0.3, -0.4, -0.2), "fails"),
        ("|dealer_edge|<=0.1", (0.0, -0.2, 0.2), "undecided"),
        ("|dealer_edge|>=0.1", (0.0, -0.05, 0.05), "fails"),
    ],
)
def test_verdicts_read_the_interval(text, interval, want):
    assert dz._verdict(dz.parse_constraint(text), *interval) == want


def test_pareto_mask_matches_brute_force():
    rng = np.random.default_rng(3)
    pts = rng.integers(0, 5, size=(40, 3)).astype(float)
    got = dz.pareto_mask(pts)
    for i, p in enumerate(pts):
        dominated = any((q >= p).all() and (q > p).any() for j, q in enumerate(pts) if j != i)
        assert got[i] == (not dominated)


VARY = {"discard_pay": ["discarder", "all_three", "discarder_x3"], "special8": ["max", "add"]}


def test_rescored_design_equals_simulated_design():
    """For efficiency play the re-scored settings are exactly the simulated ones."""
    kw = dict(target="dealer_edge<=0.5", keep=["flow>=6"], deals=600, seed=4,
              policies="efficiency", progress=False)  # fmt: skip
    fast = analysis.design("zhuji", VARY, **kw)
    slow = analysis.design("zhuji", VARY, simulate_all=True, **kw)
    assert fast.attrs["design"]["simulated_runs"] == 1
    assert slow.attrs["design"]["simulated_runs"] == 6
    assert (fast["method"].iloc[1:] == "rescored").all()
    assert (slow["method"] == "simulated").all()
    cols = [c for c in fast.columns if c != "method"]
    pd.testing.assert_frame_equal(fast[cols], slow[cols], check_exact=True)
    # the verdicts and Pareto flags follow from the intervals
    for r in fast.to_dict("records"):
        want = dz._verdict(dz.parse_constraint("flow>=6"), r["flow"], r["flow_lo"], r["flow_hi"])
        assert r["verdict:flow>=6"] == want
    assert fast["pareto"].any()


def test_strong_play_is_first_order_and_play_options_simulate():
    t = analysis.design(
        "zhuji",
        {"min_tai": [2, 3], "discard_pay": ["discarder", "all_three"]},
        target="dealer_edge<=1",
        deals=300,
        seed=1,
        policies="strong",
        progress=False,
    )
    assert t.attrs["design"]["simulated_runs"] == 2
    assert set(t["method"]) == {"simulated", "rescored (first-order)"}


def test_large_spaces_are_sampled_by_latin_hypercube():
    vary = {"min_tai": [0, 1, 2, 3, 4, 5], "discard_pay": VARY["discard_pay"], **{
        "special8": VARY["special8"]}}  # fmt: skip
    settings = dz._settings(engine.variants.get("zhuji"), vary, 12, seed=5)
    assert len(settings) <= 12 and len({dz._label(s) for s in settings}) == len(settings)
    assert {s["min_tai"] for s in settings} == {0, 1, 2, 3, 4, 5}
    assert dz._settings(engine.variants.get("zhuji"), vary, 12, seed=5) == settings


def test_design_bad_input():
    for vary, msg in (
        ({"nope": [1]}, "unknown rule option 'nope'"),
        ({"min_tai": [9]}, "min_tai=9 is not allowed"),
        ({}, "give at least one --vary"),
    ):
        with pytest.raises(UsageError, match=msg):
            analysis.design("zhuji", vary, target="flow>=1", deals=10, progress=False)


@pytest.mark.parametrize(
    ("argv", "msg"),
    [
        (["design", "zhuji", "--vary", "min_tai", "--target", "flow>=1"], "write KEY=V1,V2"),
        (["design", "zhuji", "--vary", "min_tai=1,2", "--target", "flow"], "constraint 'flow'"),
        (["design", "nope", "--vary", "a=1", "--target", "flow>=1"], "unknown variant"),
        (
            ["design", "zhuji", "--vary", "min_tai=1", "--target", "flow>=1", "--plot", "x.svg"],
            "give a .png",
        ),  # fmt: skip
        (
            [
                "design",
                "zhuji",
                "--vary",
                "min_tai=1",
                "--rule",
                "min_tai=2",
                "--target",
                "flow>=1",
            ],
            "both set min_tai",
        ),  # fmt: skip
    ],
)
def test_design_cli_errors(argv, msg, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert msg in err and len(err.strip().splitlines()) == 1


def test_design_cli_json_and_plot(tmp_path, capsys):
    png = tmp_path / "d.png"
    argv = ["design", "zhuji", "--vary", "discard_pay=discarder,all_three", "--target",
            "|dealer_edge|<=1", "--deals", "200", "--policy", "efficiency", "--json",
            "--quiet", "--plot", str(png)]  # fmt: skip
    assert main(argv) == 0
    data = json.loads(capsys.readouterr().out)
    assert [s["setting"] for s in data["settings"]] == [
        "discard_pay=discarder",
        "discard_pay=all_three",
    ]
    assert png.stat().st_size > 10_000 and png.read_bytes()[:4] == b"\x89PNG"


# ---- mjlab rescore --------------------------------------------------------------------------
@pytest.fixture(scope="module")
def recorded(tmp_path_factory):
    d = tmp_path_factory.mktemp("rs")
    run = engine.simulate("zhuji", deals=400, seed=2, policies="efficiency", progress=False)
    run.to_parquet(d / "eff.parquet")
    val = engine.simulate("zhuji", deals=400, seed=2, policies="strong", progress=False)
    val.to_parquet(d / "val.parquet")
    return d


def test_rescore_cli_writes_a_loadable_file(recorded, tmp_path, capsys):
    out = tmp_path / "r.parquet"
    argv = ["rescore", str(recorded / "eff.parquet"), "--rule", "discard_pay=all_three",
            "--out", str(out)]  # fmt: skip
    assert main(argv) == 0
    text = capsys.readouterr().out
    assert "re-scored 400 zhuji deals under discard_pay=all_three" in text
    assert "exact: efficiency play does not read the payouts" in text
    got = analysis.load(out)
    want = engine.simulate(
        "zhuji", deals=400, seed=2, policies="efficiency", progress=False,
        rules={"discard_pay": "all_three"},
    ).to_pandas()  # fmt: skip
    pd.testing.assert_frame_equal(got, want, check_exact=True)
    assert got.attrs["mjlab"]["rescored"]["changes"] == {"discard_pay": "all_three"}
    assert main(["summarize", str(out)]) == 0
    # the same file again needs --force; a re-scored file never mixes with a simulated one
    assert main(argv) == 2
    assert "exists (give --force" in capsys.readouterr().err
    folder = tmp_path / "mixed"
    folder.mkdir()
    shutil.copy(out, folder / "a.parquet")
    engine.simulate(
        "zhuji", deals=400, seed=2, policies="efficiency", progress=False,
        rules={"discard_pay": "all_three"},
    ).to_parquet(folder / "b.parquet")  # fmt: skip
    with pytest.raises(UsageError, match="rescored"):
        analysis.load(folder)


def test_rescore_cli_value_play_says_first_order(recorded, tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(analysis.rescoring, "_gap_dir", lambda: tmp_path / "gaps")
    out = tmp_path / "v.parquet"
    argv = ["rescore", str(recorded / "val.parquet"), "--rule", "special8=add", "--out", str(out)]
    assert main(argv) == 0
    err = capsys.readouterr().err
    assert "value-aware play may shift these; add --gap" in err
    assert main([*argv, "--force", "--gap", "--gap-deals", "300", "--quiet"]) == 0
    text = capsys.readouterr().out
    assert "re-scoring minus re-simulating (300 deals" in text
    gap = analysis.cached_gap(
        "zhuji", engine.variants.get("zhuji").resolve({}), ["strong"] * 4, {"special8": "add"}
    )
    assert gap is not None and set(gap["metric"]) == set(analysis.rescoring.GAP_METRICS)
    assert (gap["gap_lo"] <= gap["gap"]).all() and (gap["gap"] <= gap["gap_hi"]).all()


def test_a_gap_cached_by_another_version_is_not_read(tmp_path, monkeypatch):
    import json

    monkeypatch.setattr(analysis.rescoring, "_gap_dir", lambda: tmp_path)
    rules = engine.variants.get("zhuji").resolve({})
    ident = {"variant": "zhuji", "rules": rules, "policies": ["strong"] * 4,
             "changes": {"special8": "add"}, "deals": 300, "seed": 1}  # fmt: skip
    rows = [{"metric": "flow", "rescored": 1.0, "simulated": 1.0, "gap": 0.0, "gap_lo": 0.0,
             "gap_hi": 0.0, "n": 300}]  # fmt: skip
    path = tmp_path / "old.json"
    path.write_text(json.dumps({"identity": ident, "rows": rows}, default=str))
    assert analysis.cached_gap("zhuji", rules, ["strong"] * 4, {"special8": "add"}) is None
    ident["version"] = analysis.rescoring.GAP_VERSION
    path.write_text(json.dumps({"identity": ident, "rows": rows}, default=str))
    got = analysis.cached_gap("zhuji", rules, ["strong"] * 4, {"special8": "add"})
    assert got is not None and list(got["metric"]) == ["flow"]


def test_rescore_gap_is_zero_for_efficiency():
    gap = analysis.rescore_gap(
        "zhuji", {"discard_pay": "discarder_x3"}, policies="efficiency", deals=300, seed=1,
        cache=False,
    )  # fmt: skip
    assert (gap["gap"] == 0).all()
    assert (gap["rescored"] == gap["simulated"]).all()
    assert tuple(gap["metric"]) == analysis.rescoring.GAP_METRICS  # no pattern paid


def test_rescore_gap_measures_the_share_of_each_pattern_whose_payout_changes():
    changes = {"pay_qingyise": 8, "pay_qidui": 8, "pay_zimo": 4}
    v = engine.variants.get("tuidaohu")
    assert v.payout_pattern["pay_qingyise"] == "qingyise"
    gap = analysis.rescore_gap("tuidaohu", changes, policies="efficiency", deals=300, seed=1,
                               cache=False)  # fmt: skip
    extra = tuple(gap["metric"])[len(analysis.rescoring.GAP_METRICS) :]
    assert extra == ("pattern:qingyise", "pattern:qidui")
    assert (gap["gap"] == 0).all()  # efficiency does not read payouts: exact
    assert (gap.set_index("metric").loc[list(extra), "simulated"] > 0).any()


@pytest.mark.parametrize(
    ("extra", "msg"),
    [
        (["--rule", "min_tai=2"], "min_tai changes how zhuji is played"),
        (["--rule", "nope=2"], "unknown rule option 'nope'"),
        ([], "no option to change"),
    ],
)
def test_rescore_cli_errors(recorded, tmp_path, extra, msg, capsys):
    argv = ["rescore", str(recorded / "eff.parquet"), *extra, "--out", str(tmp_path / "o.parquet")]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert msg in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "o.parquet").exists()


def test_rescore_cli_refuses_its_input_and_bad_names(recorded, capsys):
    src = str(recorded / "eff.parquet")
    assert main(["rescore", src, "--rule", "special8=add", "--out", src, "--force"]) == 2
    assert "is one of the input files" in capsys.readouterr().err
    assert main(["rescore", src, "--rule", "special8=add", "--out", "x.csv"]) == 2
    assert "give a .parquet" in capsys.readouterr().err


# ---- the notebook explorer ----------------------------------------------------------------------
def test_explorer_controls_and_view():
    import ipywidgets as w

    from analysis.explore import explore_view, explorer, payout_controls

    controls = payout_controls("zhuji")
    assert set(controls) == set(engine.runs.rescore.payout_keys("zhuji"))
    assert all(isinstance(c, (w.Dropdown, w.Checkbox, w.IntSlider)) for c in controls.values())
    run = engine.simulate("zhuji", deals=300, seed=3, policies="efficiency", progress=False)
    frame = run.to_pandas()
    frame.attrs["mjlab"] = run.metadata()
    same = explore_view(frame, {"discard_pay": "discarder"})
    assert same["changes"] == {} and same["frame"] is frame
    view = explore_view(frame, {"discard_pay": "all_three"})
    want = analysis.rescore(run, discard_pay="all_three")
    pd.testing.assert_frame_equal(view["frame"], want, check_exact=True)
    roles = analysis.payouts_by_role(want)
    assert np.allclose(view["roles"]["mean"], roles["mean"])
    flow = view["headline"].set_index("metric").loc["flow"]
    assert flow["rescored"] > flow["recorded"]  # all three pay: more money moves
    box = explorer(run)
    assert len(box.children[0].children) == len(controls)


def test_pareto_is_over_the_edge_relative_to_the_stakes():
    """Issue 45: over the edge in points, a setting that only pays less looked as fair as
    paying more and moving more money (all six 丽水 settings came out Pareto); over the
    edge in SD units it is dominated."""
    rows = []
    for scale in (1.0, 0.5, 0.25):  # the same game at a third of the stakes and less
        rows.append({"setting": f"x{scale}", "dealer_edge": 1.0 * scale,
                     "dealer_edge_lo": 0.9 * scale, "dealer_edge_hi": 1.1 * scale,
                     "dealer_edge_sd": 0.05, "dealer_edge_sd_lo": 0.04,
                     "dealer_edge_sd_hi": 0.06, "flow": 10 * scale, "flow_lo": 9 * scale,
                     "flow_hi": 11 * scale})  # fmt: skip
    cons = [dz.parse_constraint("flow>=0")]
    out = dz._judge(pd.DataFrame(rows), rows, cons, skill=False)
    assert out["pareto"].tolist() == [True, False, False]
    assert "dealer_edge_sd" in dz.DESIGN_METRICS and "dealer_edge_share" in dz.DESIGN_METRICS
