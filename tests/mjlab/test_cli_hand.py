"""``mjlab hand``: exit codes, JSON content, one-line errors (DESIGN: CLI contract)."""

from __future__ import annotations

import json

import pytest

from mjlab.cli import main


def _messages(err: str) -> list[str]:
    """stderr lines apart from the one-time compile notice of a cold cache."""
    return [line for line in err.splitlines() if not line.startswith("mjlab: compiling ")]


def run_json(capsys, *args):
    code = main(["hand", *args, "--json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert _messages(err) == []
    return json.loads(out)


def test_waiting_hand_json(capsys):
    r = run_json(capsys, "123m456p789s1122z")
    assert r["hand"] == "123m456p789s1122z"
    assert r["tiles"] == 13 and r["sets"] == 4 and r["wilds"] == 0
    assert r["shanten"] == 0 and r["complete"] is False
    assert r["shanten_by_shape"] == {"standard": 0, "seven_pairs": 4, "thirteen_orphans": 8}
    assert r["waits"] == [{"tile": "1z", "remaining": 2}, {"tile": "2z", "remaining": 2}]
    assert r["waits_total"] == 4


def test_nine_gates_waits_on_all_nine(capsys):
    r = run_json(capsys, "1112345678999m")
    assert [w["tile"] for w in r["waits"]] == [f"{i}m" for i in range(1, 10)]
    # 1m and 9m: three held, one left; 2m..8m: one held, three left
    assert r["waits_total"] == 1 + 7 * 3 + 1


def test_complete_hand_json_lists_discards(capsys):
    r = run_json(capsys, "123m456p789s11222z")
    assert r["complete"] is True and r["shanten"] == -1
    assert "waits" not in r
    first = r["discards"][0]
    assert first["shanten"] == 0


def test_best_discard_first(capsys):
    r = run_json(capsys, "123m456p789s11225z")
    assert r["complete"] is False
    first = r["discards"][0]
    assert first == {"discard": "5z", "shanten": 0, "ukeire": 4, "draws": ["1z", "2z"]}
    keys = [(d["shanten"], -d["ukeire"]) for d in r["discards"]]
    assert keys == sorted(keys)
    assert {d["discard"] for d in r["discards"]} == {
        "1m", "2m", "3m", "4p", "5p", "6p", "7s", "8s", "9s", "1z", "2z", "5z"
    }  # fmt: skip


def test_wild_tiles(capsys):
    r = run_json(capsys, "123m456p789s11z555z", "--wild", "5z")
    assert r["wilds"] == 3 and r["wild_kinds"] == ["5z"]
    assert r["complete"] is True and r["shanten"] == -1
    # the wild tiles are never offered as a discard
    assert all(d["discard"] != "5z" for d in r["discards"])


def test_wild_as_a_fifth_copy(capsys):
    r = run_json(capsys, "1111m234p567s789s7z", "--wild", "7z")
    assert r["complete"] is True


def test_sixteen_tile_hand_infers_five_sets(capsys):
    r = run_json(capsys, "123456789m123p1155z")
    assert r["tiles"] == 16 and r["sets"] == 5 and r["shanten"] == 0
    assert [w["tile"] for w in r["waits"]] == ["1z", "5z"]
    assert r["shanten_by_shape"] == {"standard": 0}  # special shapes need sets=4


def test_explicit_sets(capsys):
    r = run_json(capsys, "123m456p78s11z", "--sets", "3")
    assert r["sets"] == 3 and r["tiles"] == 10 and r["shanten"] == 0
    assert r["waits"] == [{"tile": "6s", "remaining": 4}, {"tile": "9s", "remaining": 4}]


def test_buda_shape(capsys):
    r = run_json(capsys, "147m258p369s12345z", "--shape", "buda")
    assert r["complete"] is True and r["shanten_by_shape"] == {"buda": -1}


def test_text_output(capsys):
    assert main(["hand", "123m456p789s1122z"]) == 0
    out, err = capsys.readouterr()
    assert _messages(err) == []
    assert "shanten 0" in out
    assert "1z×2 2z×2" in out and "(4 tiles)" in out


def test_text_output_complete(capsys):
    assert main(["hand", "123m456p789s11222z"]) == 0
    out, _ = capsys.readouterr()
    assert out.splitlines()[1].startswith("complete")


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["123m456p789s1122x"], "'x'"),  # unknown suit letter
        (["123m456p789s1128z"], "8z"),  # no 8z
        (["11111m456p789s11z"], "fifth"),
        (["123m456p789s1122z", "--sets", "5"], "16 or 17"),
        (["123m456p789s1122z", "--sets", "9"], "sets"),
        (["123m456p789s1122z33z"], "15 tiles"),
        (["123m456p789s1122z", "--shape", "foo"], "foo"),
        (["123m456p789s1122z", "--wild", "9z"], "9z"),
        (["123m456p789s1122z", "--sets", "four"], "four"),
        ([], "HAND"),
    ],
)
def test_bad_input_exits_2_with_one_line(capsys, args, words):
    code = main(["hand", *args])
    out, err = capsys.readouterr()
    assert code == 2
    assert out == ""
    assert err.count("\n") == 1 and err.endswith("\n"), err
    assert err.startswith("mjlab"), err
    assert words in err
    assert "Traceback" not in err
