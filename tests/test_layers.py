"""The layer contracts (pyproject ``[tool.importlinter]``) hold: ``lint-imports`` passes.

The floors of the engine (tiles, rng, errors, the numba house options and the cold-start
notice, the hand kernels, the caches, the file IO) import nothing above them, and no
family toolkit or variant imports the analysis layer directly. Issue 18 extends these
contracts to every layer.
"""

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _lint(*args):
    exe = shutil.which("lint-imports")
    if exe is None:
        pytest.fail("lint-imports is missing: pip install -e '.[dev]' installs import-linter")
    return subprocess.run([exe, *args], cwd=ROOT, capture_output=True, text=True, check=False)


def test_the_layer_contracts_hold():
    proc = _lint()
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "0 broken" in proc.stdout


def test_a_backward_import_breaks_the_contract(tmp_path):
    """The contract is not vacuous: the same check on a copy of the floors with one
    upward import added fails, naming the import."""
    pkg = tmp_path / "engine"
    shutil.copytree(ROOT / "engine", pkg, ignore=shutil.ignore_patterns("botdata", "__pycache__"))
    shutil.copytree(ROOT / "analysis", tmp_path / "analysis",
                    ignore=shutil.ignore_patterns("__pycache__"))  # fmt: skip
    tiles = pkg / "tiles.py"
    tiles.write_text(tiles.read_text(encoding="utf-8") + "\nfrom engine import run  # noqa\n")
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    exe = shutil.which("lint-imports")
    assert exe is not None
    env = {"PYTHONPATH": str(tmp_path), "PATH": str(Path(sys.executable).parent)}
    proc = subprocess.run([exe], cwd=tmp_path, capture_output=True, text=True, env=env,
                          check=False)  # fmt: skip
    assert proc.returncode != 0
    assert "engine.tiles" in proc.stdout and "engine.run" in proc.stdout
