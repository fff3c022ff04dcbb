"""The decision audit (engine.play.mahjong.audit, engine.runs.audit, ``mjlab audit``)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from engine import variants
from engine.mahjong import layout as L
from engine.play.drivers import replay_deal
from engine.play.mahjong.audit import COUNTS, audit_mahjong
from engine.play.mahjong.testing import DRIVER
from engine.runs.audit import audit
from engine.runs.run import simulate
from mjlab.cli import main


def _events(name, policy, deals, seed=7):
    v = variants.get(name)
    res = v.resolve({})
    pols = (policy,) * v.n_players(res)
    for m in range(-(-deals // 16)):
        for d in range(min(16, deals - 16 * m)):
            yield replay_deal(DRIVER, name, seed, m, d, res, pols, 16)


@pytest.mark.parametrize(("name", "policy"), [("zhuji", "strong"), ("tuidaohu", "value")])
def test_the_counts_agree_with_what_the_log_shows_happened(name, policy):
    """Every claim and kong made appears as a choice taken, and nothing else does."""
    deals = 24
    v = variants.get(name)
    res = v.resolve({})
    got = audit_mahjong(v, res, 7, deals, (policy,) * 4)
    assert set(got) == set(COUNTS) and got["deals"] == deals
    claims = {L.M_PONG: 0, L.M_KONG: 0, L.M_CHOW: 0}
    kongs = {L.M_ANKONG: 0, L.M_ADDKONG: 0}
    deal_ins = 0
    for events, _row, _, _ in _events(name, policy, deals):
        for code, _a, b, _c, d in events.tolist():
            if code == L.E_CLAIM:
                claims[b] += 1
            elif code == L.E_KONG and d == 0:
                kongs[b] += 1
            elif code == L.E_WIN and b in (L.WIN_DISCARD, L.WIN_ROB_KONG):
                deal_ins += 1
    assert got["pong_made"] + got["honor_pong_made"] == claims[L.M_PONG] + claims[L.M_KONG]
    assert got["mingkong_made"] == claims[L.M_KONG]
    assert got["chow_made"] == claims[L.M_CHOW]
    assert got["ankong_made"] == kongs[L.M_ANKONG]
    assert got["addkong_made"] == kongs[L.M_ADDKONG]
    assert got["deal_in"] == deal_ins
    made = sum(got[k] for k in COUNTS if k.endswith("_made"))
    declined = sum(got[k] for k in COUNTS if k.endswith("_declined"))
    assert got["decisions"] >= made + declined + got["wait_kept"] + got["wait_broken"]


def test_the_choices_logged_leave_the_records_as_played():
    """The audit's log is written only while a deal is replayed: the replayed row is the
    row the same seed records without it."""
    rows = simulate("zhuji", 32, seed=7, policies="strong", progress=False).to_pandas()
    for m, d in ((0, 5), (1, 15)):
        _, row, _, _ = replay_deal(DRIVER, "zhuji", 7, m, d, variants.get("zhuji").resolve({}),
                                   ("strong",) * 4, 16)  # fmt: skip
        want = rows[(rows["match"] == m) & (rows["deal"] == d)].iloc[0]
        for col in ("winner", "win_type", "turns", "delta_0", "delta_1", "delta_2", "delta_3"):
            assert row[col] == want[col], col


def test_a_passed_jinque_chase_is_counted_with_its_reason():
    """福州 value bots pass plain wins for 金雀; each pass is a counted choice and why."""
    v = variants.get("fuzhou")
    res = v.resolve({})
    got = audit_mahjong(v, res, 7, 64, ("value",) * 4)
    passed = got["win_passed_discard"] + got["win_passed_self"] + got["win_passed_rob"]
    reasons = got["passed_for_jinque"] + got["passed_for_self_draw"] + got["passed_for_youjin"]
    assert passed == reasons


def test_the_command_prints_rates_with_intervals(capsys):
    assert main(["audit", "tuidaohu", "--policy", "value", "--deals", "16", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["counts"]["deals"] == 16 and out["policy"] == "value"
    for r in out["rates"]:
        assert r["lo"] <= r["rate"] <= r["hi"]
    assert main(["audit", "tuidaohu", "--policy", "value", "--deals", "16"]) == 0
    text = capsys.readouterr().out
    assert "mjlab audit tuidaohu" in text and "95% interval" in text


@pytest.mark.parametrize(
    "argv",
    [["audit", "tuidaohu", "--deals", "0"], ["audit", "tuidaohu", "--policy", "value,strong"],
     ["audit", "nosuch"], ["audit", "tuidaohu", "--rule", "ghost=nine"]],
)  # fmt: skip
def test_bad_input_is_one_line_and_exit_2(argv, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1


def test_the_audit_names_the_bots_it_played():
    res = audit("tuidaohu", deals=16, policy="value", rules={"pay_qingyise": 8})
    assert "pay_qingyise" in res["bots"] and res["rules"]["pay_qingyise"] == 8
    assert np.isfinite(res["counts"]["deals"])
