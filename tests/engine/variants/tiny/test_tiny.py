"""The tiny test variant (``engine/variants/tiny/``): a real variant used by the tests and
by the README's "Add a variant" walkthrough.

It runs by name through the same registry-wide tests as the others (conformance, record
hashes, worked patterns in tests/engine/variants/test_patterns.py); here: its golden replay, its
payments, that it is left out of the listings, and that the walkthrough is true (the variant is one
folder plus one registration line, and the README names exactly those files).
"""

import json
import re
import subprocess
from pathlib import Path

import pytest

from engine import variants
from mjlab.cli import main

ROOT = Path(__file__).resolve().parents[4]
GOLDEN = Path(__file__).parents[3] / "golden"


def _run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_tiny_is_registered_runnable_and_unlisted(capsys):
    v = variants.get("tiny")
    assert "tiny" in variants.names() and "tiny" not in variants.listed()
    assert not v.listed and all(variants.get(n).listed for n in variants.listed())
    code, out, _ = _run(capsys, "variants", "--json")
    assert code == 0 and "tiny" not in {d["name"] for d in json.loads(out)}
    assert variants.describe("tiny")["listed"] is False


def test_simulate_tiny_by_name(tmp_path, capsys):
    out_path = tmp_path / "tiny.parquet"
    code, out, err = _run(capsys, "simulate", "tiny", "--deals", "200", "--out", str(out_path))
    assert code == 0, err
    assert "200 deals of tiny" in out and out_path.exists()


@pytest.mark.parametrize(
    ("argv", "patterns", "value", "deltas"),
    [
        # a plain discard win: 1 from the discarder
        ("123m456p789s111z55z --win 5z --seat 0 --from 2", [], 1, [1, 0, -1, 0]),
        # self-drawn 碰碰胡 清一色: 2 × 4 × 2 = 16 from each other seat
        ("11122233344455m --win 5m --self-draw", ["pengpeng", "qingyise", "zimo"], 16,
         [48, -16, -16, -16]),
    ],
)  # fmt: skip
def test_tiny_pays_the_product_of_its_factors(capsys, argv, patterns, value, deltas):
    import shlex

    code, out, err = _run(capsys, "score", "tiny", *shlex.split(argv), "--json")
    assert code == 0, err
    r = json.loads(out)
    assert (r["patterns"], r["value"], r["deltas"]) == (patterns, value, deltas)


def test_tiny_refuses_wilds_and_discards_when_self_draw_only(capsys):
    code, _, err = _run(capsys, "score", "tiny", "123m456p789s111z55z", "--win", "5z",
                        "--wild", "5z")  # fmt: skip
    assert code == 2 and "wild" in err
    code, _, err = _run(capsys, "score", "tiny", "123m456p789s111z55z", "--win", "5z",
                        "--from", "1", "--rule", "dianpao=false")  # fmt: skip
    assert code == 2 and "self-draw" in err


def test_replay_golden(capsys, regen):
    """`mjlab replay tiny --seed 7 --match 0` is pinned line by line (--regen rewrites)."""
    code, out, _ = _run(capsys, "replay", "tiny", "--seed", "7", "--match", "0")
    assert code == 0
    path = GOLDEN / "tiny.txt"
    if regen:
        path.write_text(out)
    assert path.exists(), f"{path.name} is missing: pytest --regen writes it"
    assert out.splitlines() == path.read_text().splitlines()


# ---- the README walkthrough is true ----------------------------------------------------------


def _section(title: str) -> str:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    m = re.search(rf"^#+ {re.escape(title)}\n(.*?)(?=^#+ |\Z)", text, re.S | re.M)
    assert m, f"README has no section {title!r}"
    return m.group(1)


def _named_files(section: str) -> set[str]:
    return set(re.findall(r"`((?:engine|tests)/[\w/.<>-]+)`", section))


def test_the_add_a_variant_walkthrough_names_real_files():
    files = _named_files(_section("Add a variant"))
    concrete = {f.replace("<name>", "tiny") for f in files}
    for f in concrete:
        assert (ROOT / f).exists(), f
    assert "engine/variants/tiny/__init__.py" in concrete
    assert "engine/variants/tiny/_kernels.py" in concrete
    assert "engine/variants/_registry.py" in concrete
    # nothing else of the engine: one folder plus the registration line
    outside = {f for f in concrete if f.startswith("engine/") and "/tiny/" not in f}
    assert outside == {"engine/variants/_registry.py"}, outside


def test_the_add_a_pattern_walkthrough_is_one_folder():
    files = _named_files(_section("Add a pattern"))
    engine_files = {f for f in files if f.startswith("engine/")}
    assert engine_files, "the walkthrough names no file"
    folders = {f.rstrip("/") if f.endswith("/") else str(Path(f).parent) for f in engine_files}
    assert folders == {"engine/variants/<name>"}, folders
    for f in engine_files:
        assert (ROOT / f.replace("<name>", "tiny")).exists(), f


def test_tiny_is_one_folder_and_one_registration_line():
    """What adding tiny touched in the engine, read from git: its folder and the one line
    naming it in MODULES (the other files it touched are tests, docs and goldens)."""
    folder = ROOT / "engine" / "variants" / "tiny"
    assert sorted(p.name for p in folder.glob("*.py")) == ["__init__.py", "_kernels.py"]
    registry = (ROOT / "engine" / "variants" / "_registry.py").read_text(encoding="utf-8")
    assert len(re.findall(r'"tiny"', registry)) == 1
    # no engine module outside its folder names it (the registry line aside)
    proc = subprocess.run(["git", "grep", "-l", "-w", "tiny", "--", "engine", "analysis"],
                          cwd=ROOT, capture_output=True, text=True, check=False)  # fmt: skip
    if proc.returncode > 1:
        pytest.skip("not a git checkout")
    named = {line for line in proc.stdout.splitlines() if "/tiny/" not in line}
    assert named <= {"engine/variants/_registry.py"}, named
