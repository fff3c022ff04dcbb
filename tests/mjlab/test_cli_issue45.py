"""Issue 45's frictions of the command line, each a test: help and defaults on every
option, ``--deals 1e6``, Chinese variant names, a repeated ``--rule`` refused, ``sweep
--rule K=V`` against the default, one bot for every answer (the report's, named in every
header), CSV and Excel export, ``summarize`` showing results (not bookkeeping) with 汉字,
and its intervals agreeing with its verdicts."""

from __future__ import annotations

import argparse
import json
import math

import pandas as pd
import pytest

from analysis import report
from analysis.schema import BOOKKEEPING
from engine import variants
from mjlab import cli
from mjlab.cli import main


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture(scope="module")
def records(tmp_path_factory):
    """800 deals of 推倒胡, named in Chinese, with the default policy."""
    path = tmp_path_factory.mktemp("rec") / "t.parquet"
    assert main(["simulate", "推倒胡", "--deals", "8e2", "--seed", "4", "--out", str(path),
                 "--quiet"]) == 0  # fmt: skip
    return path


def subparser(name: str) -> argparse.ArgumentParser:
    sub = next(a for a in cli._build_parser()._actions if a.dest == "command")
    return sub.choices[name]


@pytest.mark.parametrize("name", ["report", "sweep", "design"])
def test_every_option_has_help_and_its_default(name):
    p = subparser(name)
    fmt = p.formatter_class(prog=p.prog)
    for a in p._actions:
        if a.dest == "help":
            continue
        assert a.help, f"{name} {a.option_strings or a.dest}: no help"
        if a.option_strings and not a.required and a.nargs != 0:
            assert "default" in fmt._get_help_string(a), f"{name} {a.option_strings}: no default"


def test_deals_take_exact_whole_numbers_in_e_notation():
    assert cli.count("1e6") == 1_000_000 and cli.count("2.5e5") == 250_000
    argv = ["simulate", "tuidaohu", "--deals", "1e6", "--out", "x.parquet"]
    args = cli._build_parser().parse_args(argv)
    assert args.deals == 1_000_000
    for bad in ("1.5", "1e-3", "abc"):
        with pytest.raises(argparse.ArgumentTypeError):
            cli.count(bad)


def test_chinese_variant_names_are_accepted():
    assert cli.variant_name("丽水") == "lishui" and cli.variant_name("推倒胡") == "tuidaohu"
    assert cli.variant_name("丽水麻将") == "lishui" and cli.variant_name("zhuji") == "zhuji"


def test_a_repeated_rule_is_refused(tmp_path, capsys):
    code, _, err = run(capsys, "simulate", "lishui", "--deals", "32", "--rule", "caishen=1",
                       "--rule", "caishen=2", "--out", str(tmp_path / "x.parquet"))  # fmt: skip
    assert code == 2 and "caishen is given twice" in err
    assert not (tmp_path / "x.parquet").exists()


def test_sweep_of_one_value_compares_it_with_the_default(tmp_path, capsys):
    code, out, _ = run(capsys, "sweep", "诸暨", "--rule", "caishen=1", "--deals", "64",
                       "--policy", "value", "--out", str(tmp_path / "sw"), "--json")  # fmt: skip
    assert code == 0
    data = json.loads(out)
    table = pd.DataFrame(data["table"])
    default = str(variants.get("zhuji").option_map["caishen"].default)
    assert default != "1"
    assert set(table["option_value"].astype(str)) == {default, "1"}
    assert str(data["baseline"]) == default and data["policies"] == "value"


def test_one_bot_for_every_answer_named_in_every_header(records, capsys):
    """The playing commands default to the report's policy, and say which they played."""
    for name in variants.names():
        assert cli.default_policy(name) == report.report_policy(variants.get(name))
    for cmd in cli._PLAYS:
        p = subparser(cmd)
        pol = next(a for a in p._actions if a.dest == "policy")
        assert pol.default is None and "balance report" in pol.help
    code, out, _ = run(capsys, "summarize", str(records), "--json")
    assert code == 0 and json.loads(out)["policies"] == report.report_policy(
        variants.get("tuidaohu")
    )
    code, out, _ = run(capsys, "summarize", str(records))
    assert code == 0 and "strong" in out.split("\n\n")[0]


def test_summarize_shows_results_with_their_chinese_names(records, capsys):
    code, out, _ = run(capsys, "summarize", str(records), "--json")
    data = json.loads(out)
    shown = {r["extra"] for r in data.get("extras", [])}
    assert not shown & set(BOOKKEEPING)
    code, text, _ = run(capsys, "summarize", str(records))
    assert "庄家" in text and "下家" in text  # roles beside their pinyin
    assert not any(f" {b} " in text for b in BOOKKEEPING)
    v = variants.get("tuidaohu")
    assert any(p.hanzi in text for p in v.patterns if p.hanzi)


def test_summarize_exports_csv_and_xlsx(records, capsys, tmp_path):
    code, out, _ = run(capsys, "summarize", str(records), "--format", "csv")
    assert code == 0 and "dealer_edge" in out and "," in out.splitlines()[1]
    x = tmp_path / "s.xlsx"
    code, _, _ = run(capsys, "summarize", str(records), "--format", "xlsx", "--export", str(x))
    assert code == 0
    import openpyxl

    book = openpyxl.load_workbook(x, read_only=True)
    assert "dealer_edge" in book.sheetnames and len(book.sheetnames) > 3


def test_summarize_intervals_agree_with_their_verdicts(records, capsys):
    """Issue 45.2 (``summarize --json``): each fairness row's interval excludes 0 (for
    the equivalence test: lies inside the margin) exactly when its verdict says resolved;
    joint tests print no interval."""
    code, out, _ = run(capsys, "summarize", str(records), "--json")
    rows = json.loads(out)["fairness"]
    seen = 0
    for r in rows:
        lo, hi = r["effect_lo"], r["effect_hi"]
        if r["test"] in ("seat_win_rates", "seat_deltas", "role_deltas"):
            assert lo is None and hi is None
            continue
        assert lo is not None and hi is not None and math.isfinite(lo)
        if r["test"] == "dealer_equivalence":
            assert (-r["margin"] < lo and hi < r["margin"]) == r["reject"]
        else:
            assert (lo > 0 or hi < 0) == r["reject"]
            assert ("no resolved dealer edge" in r["verdict"]) == (not r["reject"])
        seen += 1
    assert seen == 2
