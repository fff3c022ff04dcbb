"""A cold start that talks (issue 17.7, 21.1): one notice while compiling, silence when
warm, and ``mjlab warmup`` compiling ahead of time."""

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from engine.jit import njit as _numba
from engine.jit import warmup as _warmup
from engine.jit.njit import kernel

REPO = Path(__file__).resolve().parents[3]


def _cli(cache, *args):
    main = "import sys; from mjlab.cli import main; sys.exit(main(sys.argv[1:]))"
    env = {**os.environ, "MJLAB_CACHE_DIR": str(cache)}
    env.pop("NUMBA_CACHE_DIR", None)
    return subprocess.run(
        [sys.executable, "-c", main, *args], cwd=REPO, env=env, capture_output=True, text=True
    )


def test_the_first_run_says_it_is_compiling_and_later_runs_are_silent(tmp_path):
    cache = tmp_path / "cache"
    cold = _cli(cache, "hand", "123m456p789s1122z")
    assert cold.returncode == 0, cold.stderr
    lines = cold.stderr.strip().splitlines()
    assert len(lines) == 1, cold.stderr  # one line (the bar shows on a terminal only)
    assert lines[0].startswith("mjlab: compiling the hand-evaluation kernels (first run only")
    assert "s of CPU" in lines[0] and "mjlab warmup" in lines[0]
    warm = _cli(cache, "hand", "123m456p789s1122z")
    assert warm.returncode == 0 and warm.stderr == ""
    assert warm.stdout == cold.stdout


@kernel(cache=False)  # compiled in every process: a cold start each time
def _leaf(x):
    return x * 3


@kernel(cache=False)
def _root(a):
    s = 0
    for v in a:
        s += _leaf(v)
    return s


def test_a_compile_is_announced_once_and_its_functions_counted(monkeypatch, capsys):
    monkeypatch.setattr(_warmup, "_ANNOUNCED", set())
    assert _root(np.arange(4, dtype=np.int64)) == 18
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("mjlab: compiling the engine's kernels")
    assert _warmup._ACTIVE is None  # the bar closed when the outermost compile returned
    assert _warmup.LAST["the engine's kernels"] >= 2  # _root, _leaf (and numba's helpers)
    # another signature of the same kernels: counted, not announced again
    assert _root(np.arange(4, dtype=np.int32)) == 18
    assert capsys.readouterr().err == ""


def test_warmup_rejects_an_unknown_variant(tmp_path):
    proc = _cli(tmp_path / "cache", "warmup", "nosuch")
    assert proc.returncode == 2
    assert len(proc.stderr.strip().splitlines()) == 1 and "nosuch" in proc.stderr
    assert not (tmp_path / "cache").exists() or not list((tmp_path / "cache").rglob("*.nbi"))


@pytest.mark.parametrize("variants", [("tuidaohu", "luodisao")])
def test_warmup_leaves_nothing_to_compile(variants, tmp_path):
    # the suite's own cache: compiled by the tests before this one, or by this warmup
    cache = os.environ.get("MJLAB_CACHE_DIR") or _numba.compiled_dir().parent
    first = _cli(cache, "warmup", *variants)
    assert first.returncode == 0, first.stderr
    assert first.stdout.startswith("warm: hand tables")
    for v in variants:
        assert f"{v} " in first.stdout
    again = _cli(cache, "warmup", *variants)
    assert again.returncode == 0 and "compiling" not in again.stderr, again.stderr
    # what warmup compiled is what simulate and hand use
    for v in variants:
        out = tmp_path / f"{v}.parquet"
        proc = _cli(cache, "simulate", v, "--deals", "40", "--quiet", "--out", str(out))
        assert proc.returncode == 0 and proc.stderr == "", proc.stderr
        # the strong policy's kernels are bound only for a strong seat: warmup plays one
        strong = tmp_path / f"{v}-strong.parquet"
        proc = _cli(cache, "simulate", v, "--deals", "40", "--quiet", "--policy", "strong",
                    "--out", str(strong))  # fmt: skip
        assert proc.returncode == 0 and proc.stderr == "", proc.stderr
    proc = _cli(cache, "hand", "19m19p19s1234567z")
    assert proc.returncode == 0 and proc.stderr == "", proc.stderr
