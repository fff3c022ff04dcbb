"""The CLI contract for the engine commands: exit codes 0 / 2 / 1, outputs, goldens."""

import json
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from clirun import run

from engine import variants

GOLDEN = Path(__file__).parents[1] / "golden"


def test_variants_json(capsys):
    code, out, _ = run(capsys, "variants", "--json")
    assert code == 0
    data = {d["name"]: d for d in json.loads(out)}
    assert set(data) == set(variants.listed())
    assert "tiny" in variants.names() and "tiny" not in data  # declared listed=False
    keys = {o["key"] for o in data["tuidaohu"]["options"]}
    assert {"dianpao", "ghost", "horses", "horse_map", "huangzhuang_huanggang"} <= keys


def test_simulate_writes_parquet(tmp_path, capsys):
    out = tmp_path / "t.parquet"
    code, text, _ = run(
        capsys,
        "simulate",
        "tuidaohu",
        "--deals",
        "40",
        "--seed",
        "3",
        "--rule",
        "ghost=fan",
        "--policy",
        "value,efficiency,random,value",
        "--out",
        str(out),
        "--quiet",
    )
    assert code == 0 and out.exists()
    meta = json.loads(pq.read_schema(out).metadata[b"mjlab"])
    assert meta["rules"]["ghost"] == "fan"
    assert meta["policies"] == ["value", "efficiency", "random", "value"]
    assert pq.read_table(out).num_rows == 40


def test_simulate_rules_file(tmp_path, capsys):
    toml = tmp_path / "r.toml"
    toml.write_text('ghost = "shuang"\nhorses = "2"\n')
    out = tmp_path / "t.parquet"
    code, _, _ = run(
        capsys,
        "simulate",
        "tuidaohu",
        "--deals",
        "16",
        "--policy",
        "efficiency",  # strong would fit its models under 双鬼 first (tests/engine/runs)
        "--rules",
        str(toml),
        "--out",
        str(out),
        "--quiet",
    )
    assert code == 0
    meta = json.loads(pq.read_schema(out).metadata[b"mjlab"])
    assert meta["rules"]["ghost"] == "shuang" and meta["rules"]["horses"] == "2"


@pytest.mark.parametrize(
    "argv, needle",
    [
        (["simulate", "nope", "--deals", "5"], "unknown variant 'nope'"),
        (["simulate", "tuidaohu", "--deals", "5", "--rule", "x=1"], "unknown rule option 'x'"),
        (["simulate", "tuidaohu", "--deals", "5", "--rule", "ghost=7"], "ghost=7"),
        (["simulate", "tuidaohu", "--deals", "5", "--rule", "ghost"], "KEY=VALUE"),
        (["simulate", "tuidaohu", "--deals", "5", "--policy", "smart"], "unknown policy"),
        (["simulate", "tuidaohu", "--deals", "0"], "--deals"),
        (["simulate", "tuidaohu", "--deals", "5", "--match-length", "0"], "--match-length"),
        (["score", "tuidaohu", "123x", "--win", "1m"], "'x'"),
        (["score", "tuidaohu", "123m456p789s11122z", "--win", "9m"], "winning tile"),
        (
            ["score", "tuidaohu", "123m456p789s11122z", "--win", "1m", "--melds", "pung:1z"],
            "unknown type",
        ),
        (["replay", "tuidaohu", "--seed", "1", "--match", "0", "--deal", "99"], "--deal"),
        (["hand", "123m"], "not a hand size"),
    ],
)
def test_bad_input_exits_2_with_one_line(tmp_path, capsys, argv, needle):
    out = tmp_path / "x.parquet"
    if argv[0] == "simulate":
        argv = argv + ["--out", str(out)]
    code, _, err = run(capsys, *argv)
    assert code == 2
    assert needle in err and err.count("\n") == 1 and "Traceback" not in err
    assert not out.exists() and not list(tmp_path.iterdir())


def test_unwritable_out_exits_2(tmp_path, capsys):
    code, _, err = run(
        capsys,
        "simulate",
        "tuidaohu",
        "--deals",
        "5",
        "--out",
        str(tmp_path / "missing" / "x.parquet"),
    )
    assert code == 2 and "missing does not exist" in err


def test_internal_error_exits_1(monkeypatch, capsys):
    import mjlab.cli as cli

    def boom(args):
        raise RuntimeError("kaput")

    monkeypatch.setitem(cli._COMMANDS, "variants", boom)
    code, _, err = run(capsys, "variants")
    assert code == 1 and "internal error" in err


def test_score_json(capsys):
    code, out, _ = run(
        capsys,
        "score",
        "tuidaohu",
        "11123455678999m",
        "--win",
        "5m",
        "--self-draw",
        "--seat",
        "2",
        "--dealer",
        "0",
        "--json",
    )
    assert code == 0
    res = json.loads(out)
    assert res == {
        "complete": True,
        "patterns": ["qingyise"],
        "value": 4,
        "deltas": [-4, -4, 12, -4],
    }


def test_replay_golden(capsys, regen):
    """`mjlab replay tuidaohu --seed 7 --match 0 --policy value` is pinned line by line
    (--regen rewrites); the default policy is the report's (strong), pinned apart."""
    code, out, _ = run(capsys, "replay", "tuidaohu", "--seed", "7", "--match", "0", "--policy",
                       "value")  # fmt: skip
    assert code == 0
    path = GOLDEN / "tuidaohu.txt"
    if regen:
        path.write_text(out)
    assert path.exists(), f"{path.name} is missing: pytest --regen writes it"
    assert out.splitlines() == path.read_text().splitlines()


def test_zipai_replay_score_and_player_counts(tmp_path, capsys):
    code, out, _ = run(capsys, "replay", "luodisao", "--seed", "1", "--match", "0")
    assert code == 0 and out.startswith("mjlab replay luodisao")
    code, out, _ = run(
        capsys,
        "score",
        "luodisao",
        "x1x2x3 x4x5x6 d1d2d3 x7x8x9 x10x10x10",
        "--win",
        "x10",
        "--self-draw",
        "--json",
    )
    res = json.loads(out)
    assert code == 0 and res["complete"] and sum(res["deltas"]) == 0
    code, _, err = run(capsys, "score", "luodisao", "x1x2x3", "--win", "x1", "--flag", "bogus")
    assert code == 2 and "bogus" in err
    out_path = tmp_path / "l4.parquet"
    code, _, _ = run(
        capsys,
        "simulate",
        "luodisao",
        "--deals",
        "20",
        "--rule",
        "players=4",
        "--policy",
        "value,efficiency,random,value",
        "--out",
        str(out_path),
        "--quiet",
    )
    assert code == 0
    meta = json.loads(pq.read_schema(out_path).metadata[b"mjlab"])
    assert meta["policies"] == ["value", "efficiency", "random", "value"]
