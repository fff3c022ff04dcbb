"""`mjlab summarize` and `mjlab sweep`: outputs and the exit-code contract."""

import json

import pandas as pd
import pytest
from clirun import run

import analysis
from mjlab.cli import main


@pytest.fixture(scope="module")
def records(tmp_path_factory):
    path = tmp_path_factory.mktemp("rec") / "t.parquet"
    assert (
        main(
            ["simulate", "tuidaohu", "--deals", "800", "--seed", "4", "--out", str(path), "--quiet"]
        )
        == 0
    )
    return path


def sweep(capsys, variant, rule, deals, *more):
    """``mjlab sweep VARIANT --rule RULE --deals DEALS MORE...`` (:func:`clirun.run`)."""
    return run(capsys, "sweep", variant, "--rule", rule, "--deals", deals, *more)


def test_summarize_text_and_json(records, capsys, tmp_path):
    code, out, _ = run(capsys, "summarize", str(records))
    assert code == 0
    assert "win rate by seat" in out and "mean delta per deal by seat" in out
    assert "[" in out and "%" in out  # intervals
    # the rule values, not only rules_id; one dealer edge in points and in SD units
    assert "rules: dianpao=false" in out and "horses=dealer" in out
    e = analysis.dealer_edge(analysis.summarize(records)).iloc[0]
    assert f"  points     {e['edge']:+8.3f}" in out and "SD units" in out
    # horse and kong money with match-clustered intervals
    assert "extras, mean per deal (match-clustered intervals)" in out
    assert "horse money, seat 0" in out and "kong money, seat 3" in out
    assert "seat_deltas: engine sanity check" in out and "Holm-adjusted p" in out
    code, out, _ = run(capsys, "summarize", str(records), "--json", "--plot", str(tmp_path / "p"))
    assert code == 0
    data = json.loads(out)
    assert data["deals"] == 800 and data["variant"] == "tuidaohu"
    seats = pd.DataFrame(data["seats"])
    assert {"rate", "lo", "hi"} <= set(seats.columns)
    assert sorted(p.name for p in (tmp_path / "p").iterdir()) == [
        "tuidaohu-delta_distribution.png",
        "tuidaohu-pattern_frequencies.png",
    ]


def test_summarize_dataset_folders(tmp_path, capsys):
    for extra in ([], ["--summary-only"]):
        out = tmp_path / ("s" if extra else "r")
        assert (
            main(
                [
                    "simulate",
                    "tuidaohu",
                    "--deals",
                    "500",
                    "--out",
                    f"{out}/",
                    "--chunk-matches",
                    "8",
                    "--quiet",
                    *extra,
                ]
            )
            == 0
        )
        code, text, _ = run(capsys, "summarize", str(out), "--json")
        assert code == 0 and json.loads(text)["deals"] == 500


@pytest.mark.parametrize("content", [b"", b"PAR1 not really"])
def test_summarize_bad_files_exit_2(tmp_path, capsys, content):
    bad = tmp_path / "bad.parquet"
    bad.write_bytes(content)
    code, _, err = run(capsys, "summarize", str(bad))
    assert code == 2 and "bad.parquet" in err and err.count("\n") == 1


def test_summarize_foreign_parquet_exit_2(tmp_path, capsys):
    path = tmp_path / "other.parquet"
    pd.DataFrame({"a": [1, 2]}).to_parquet(path)
    code, _, err = run(capsys, "summarize", str(path))
    assert code == 2 and "not a mjlab record file" in err
    code, _, err = run(capsys, "summarize", str(tmp_path / "missing"))
    assert code == 2 and "no such file" in err


def test_sweep_pairs_values(tmp_path, capsys):
    code, out, _ = sweep(capsys, "tuidaohu", "horses=0,4", 320, "--out", tmp_path / "sw", "--json")
    assert code == 0
    data = json.loads(out)
    table = pd.DataFrame(data["table"])
    # the option's default (dealer) is the baseline and is played though not listed
    assert data["baseline"] == "dealer" and "default" not in data and data["paired"]
    assert set(table["option_value"].astype(str)) == {"dealer", "0", "4"}
    assert table.loc[table["is_baseline"], "option_value"].unique().tolist() == ["dealer"]
    assert sorted(p.name for p in (tmp_path / "sw").iterdir()) == [
        "horses=0.parquet",
        "horses=4.parquet",
        "horses=dealer.parquet",
    ]
    assert set(data["metrics"]) == set(table["metric"]) and "flow" in data["metrics"]
    assert "points changing hands" in data["metrics"]["flow"]
    # the horse map never changes play: common random numbers make the paired difference
    # of the draw rate exactly 0, while the unpaired interval stays wide
    code, out, _ = sweep(
        capsys, "tuidaohu", "horse_map=seed,mil", 320, "--out", tmp_path / "sw2", "--json"
    )
    table = pd.DataFrame(json.loads(out)["table"])
    dr = table[(table["metric"] == "draw_rate") & ~table["is_baseline"]].iloc[0]
    assert dr["diff"] == 0 and dr["diff_lo"] == dr["diff_hi"] == 0
    assert dr["unpaired_hi"] > dr["unpaired_lo"]


def test_a_strong_sweep_checks_the_bot_at_every_value(tmp_path, capsys):
    """With strong bots a sweep also plays strong against value at each value it plays
    (analysis.guard) and says so; --no-bot-check leaves it out."""
    args = ["sweep", "tuidaohu", "--rule", "pay_qingyise=2,8", "--deals", "256", "--policy",
            "strong"]  # fmt: skip
    code, out, _ = run(capsys, *args, "--out", str(tmp_path / "a"), "--json")
    assert code == 0
    data = json.loads(out)
    check = pd.DataFrame(data["bot_check"])
    assert check["setting"].tolist() == ["pay_qingyise=8"] and data["policies"] == "strong"
    assert (check["edge_lo"] <= check["edge_hi"]).all() and check["flag"].dtype == bool
    code, out, _ = run(capsys, *args, "--out", str(tmp_path / "b"))
    assert code == 0 and "bot check (strong against value" in out and "policies strong" in out
    code, out, _ = run(capsys, *args, "--out", str(tmp_path / "c"), "--no-bot-check")
    assert code == 0 and "bot check" not in out


def test_sweep_baseline_safe_names_plots_and_text(tmp_path, capsys):
    plot = tmp_path / "plots"
    code, out, err = sweep(
        capsys, "tuidaohu", "horses=winner:2,1,3", 64, "--baseline", 1, "--out", tmp_path / "sw",
        "--plot", plot, "--quiet",
    )  # fmt: skip
    assert code == 0 and err == ""  # --quiet: no progress bar
    names = sorted(p.name for p in (tmp_path / "sw").iterdir())
    assert names == ["horses=1.parquet", "horses=3.parquet", "horses=winner-2.parquet"]
    assert "baseline horses=1 (--baseline)" in out and "paired deal by deal" in out
    assert "adjusted p" in out and "Holm-adjusted" in out
    for m in ("flow", "dealer_edge", "draw_rate"):
        assert f"\n{m}: " in out  # every shown metric is defined in words
    pngs = sorted(p.name for p in plot.iterdir())
    assert all(":" not in n for n in pngs) and "tuidaohu-horses-flow.png" in pngs
    assert "tuidaohu-horses-seat_delta-0.png" in pngs and len(pngs) > 10
    code, _, err = sweep(
        capsys, "tuidaohu", "horses=1,3", 64, "--baseline", 9, "--out", tmp_path / "sw3"
    )
    assert code == 2 and "horses" in err and not (tmp_path / "sw3").exists()


def test_sweep_over_a_deck_option_is_unpaired(tmp_path, capsys):
    code, out, _ = sweep(capsys, "luodisao", "kings=0,2", 64, "--out", tmp_path / "k", "--quiet")
    assert code == 0
    assert "unpaired (two independent samples)" in out and "paired deal by deal" not in out
    code, out, _ = sweep(
        capsys, "luodisao", "kings=0,2", 64, "--out", tmp_path / "k", "--quiet", "--json"
    )
    data = json.loads(out)
    table = pd.DataFrame(data["table"])
    assert data["paired"] is False and data["baseline"] == 1
    nb = table[~table["is_baseline"]]
    assert (~nb["paired"]).all() and (nb["diff_se"] == nb["unpaired_se"]).all()


def test_sweep_bad_input_exit_2(tmp_path, capsys):
    code, _, err = sweep(capsys, "tuidaohu", "horses=dealer", 50, "--out", tmp_path / "x")
    # one value is compared with the default (issue 45); the default alone is not a sweep
    assert code == 2 and "is the baseline itself" in err
    code, _, err = sweep(capsys, "tuidaohu", "horses=4,banana", 50, "--out", tmp_path / "x")
    assert code == 2 and "horses=banana" in err
    assert not (tmp_path / "x").exists()
