"""The tests mirror the packages (issue 18): each test file sits where the code it tests is.

``tests/<path>/test_<name>.py`` tests the package or module at ``<path>``
(``tests/engine/hand/`` tests ``engine/hand/``, ``tests/engine/variants/lishui/`` the 丽水
variant, ``tests/analysis/report/`` the report package, ``tests/notebooks/`` the
notebooks). Only the tests in :data:`CROSS_CUTTING` stay at the top, beside the shared
support (``conftest.py``, ``strategies.py``, ``oracles/``, ``golden/``).

pytest imports each test module by its basename (the default ``prepend`` import mode, no
``__init__.py`` in the test folders; pyproject puts ``.`` and ``tests`` on the path for
``conftest``, ``strategies`` and ``oracles``), so basenames are unique across ``tests/``.
"""

from __future__ import annotations

import ast
import re
from collections import Counter
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

CROSS_CUTTING = {
    "test_contract.py": "issue 17's data contract of every command (locks, checksums, exits)",
    "test_faults.py": "issue 46's faults across the commands (resume, locks, paths, hostile files)",
    "test_layers.py": "the import-layer contracts of the whole project (lint-imports)",
    "test_layout.py": "this layout itself: every test mirrors a package",
    "test_public_api.py": "engine/ and analysis/ use only public numba, llvmlite, matplotlib",
}
"""Tests that stay at the top of ``tests/``, each with why it tests no one package."""

MIRRORED = ("mjlab", "engine", "analysis", "notebooks")
"""The top folders the tests mirror (``notebooks`` is a folder of notebooks, not a package)."""

MENTIONED_IN = ("README.md", ".ci/run", "pyproject.toml", "mjlab", "engine", "analysis", "tests")
"""Where a ``tests/.../test_x.py`` path may be named; each named one must exist."""

_MENTION = re.compile(r"tests/(?:[\w-]+/)*test_\w+\.py")


def _keys(parts) -> set[str]:
    """The names a test's basename may give a module by: ``engine.play.mahjong.hooks`` is
    ``hooks``, ``game_hooks`` or ``engine_game_hooks``."""
    parts = [p.lstrip("_") for p in parts]
    return {"_".join(parts[i:]) for i in range(len(parts))}


def _refers(path: Path, folder: tuple[str, ...], root: Path) -> bool:
    """Does the test at ``path`` test the package (or folder) ``folder``: by importing a
    module at or below it, by naming it in a string as the registry does (``"lishui"``),
    or by its basename naming the folder or one of its modules (``test_<module>...``)?"""
    stem = path.stem.removeprefix("test_")
    names = set(_keys(folder))
    for child in (root.joinpath(*folder)).iterdir():
        if child.suffix == ".py" and child.name != "__init__.py":
            names |= _keys((*folder, child.stem))
        elif (child / "__init__.py").exists():
            names |= _keys((*folder, child.name))
    if any(stem == k or stem.startswith(k + "_") for k in names):
        return True
    dotted = ".".join(folder)
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            mods = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            mods = [node.module, *(f"{node.module}.{a.name}" for a in node.names)]
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            mods = [node.value] if node.value in (folder[-1], dotted) else []
            if mods:
                return True
        else:
            continue
        if any(m == dotted or m.startswith(dotted + ".") for m in mods):
            return True
    return False


def layout_problems(root: Path, cross_cutting=CROSS_CUTTING) -> list[str]:
    """Every way the tests under ``root/tests`` fail to mirror the packages, one line each."""
    tests = root / "tests"
    problems = []
    files = sorted(p for p in tests.rglob("test_*.py") if "__pycache__" not in p.parts)
    for path in files:
        rel = path.relative_to(tests)
        shown = f"tests/{rel.as_posix()}"
        folder = rel.parts[:-1]
        if not folder:
            if path.name not in cross_cutting:
                problems.append(
                    f"{shown}: move it to the folder mirroring what it tests "
                    "(tests/engine/..., tests/analysis/...), or list it in CROSS_CUTTING"
                )
            continue
        if folder[0] not in MIRRORED:
            problems.append(f"{shown}: tests/{folder[0]}/ mirrors none of {MIRRORED}")
            continue
        code = root.joinpath(*folder)
        package = folder[0] == "notebooks" or (code / "__init__.py").exists()
        if (folder[0] == "notebooks" and len(folder) > 1) or not code.is_dir() or not package:
            problems.append(f"{shown}: {'/'.join(folder)} is not a package of the project")
        elif not _refers(path, folder, root):
            problems.append(
                f"{shown}: neither imports nor names {'.'.join(folder)}; is it in the wrong folder?"
            )
    for name, n in sorted(Counter(p.name for p in files).items()):
        if n > 1:
            problems.append(f"{name}: {n} test files share this basename (pytest needs one)")
    for path in sorted(tests.rglob("*.py")):
        rel = path.relative_to(tests)
        if len(rel.parts) > 1 and rel.parts[0] in MIRRORED and not path.name.startswith("test_"):
            problems.append(
                f"tests/{rel.as_posix()}: only test files belong in a mirror folder "
                "(shared helpers go beside conftest.py)"
            )
    for where in MENTIONED_IN:
        base = root / where
        for path in sorted(base.rglob("*") if base.is_dir() else [base]):
            if not path.is_file() or path.suffix not in ("", ".py", ".md", ".toml"):
                continue
            if path.name == "test_layout.py":  # its planted faults name missing files
                continue
            text = path.read_text(encoding="utf-8", errors="replace")
            for m in sorted(set(_MENTION.findall(text))):
                if not (root / m).exists():
                    problems.append(f"{path.relative_to(root).as_posix()}: names {m}, not there")
    return problems


def test_the_tests_mirror_the_packages():
    assert layout_problems(ROOT) == []


def test_every_cross_cutting_test_exists():
    assert sorted(CROSS_CUTTING) == sorted(p.name for p in (ROOT / "tests").glob("test_*.py"))


def test_support_modules_import_from_any_folder():
    import tomllib

    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    ini = config["tool"]["pytest"]["ini_options"]
    assert {".", "tests"} <= set(ini["pythonpath"])
    assert "import-mode" not in ini.get("addopts", ""), "basenames are kept unique for prepend"


def _tree(tmp_path: Path) -> Path:
    """A small project that mirrors itself: engine (with hand), analysis, notebooks."""
    for d in ("engine", "engine/hand", "analysis"):
        (tmp_path / d).mkdir(parents=True)
        (tmp_path / d / "__init__.py").write_text("")
    (tmp_path / "engine" / "tiles.py").write_text("")
    (tmp_path / "notebooks").mkdir()
    (tmp_path / "README.md").write_text("run tests/engine/hand/test_hand.py\n")
    files = {
        "tests/test_layers.py": "",
        "tests/conftest.py": "",
        "tests/engine/test_tiles.py": "",
        "tests/engine/hand/test_hand.py": "from engine import hand\n",
        "tests/engine/hand/test_waits.py": "from engine.hand import waits\n",
        "tests/analysis/test_stats.py": "import analysis\n",
        "tests/notebooks/test_notebooks.py": "",
    }
    for rel, text in files.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    return tmp_path


FAULTS = {
    "top-level": ("tests/test_stray.py", "import engine\n", "tests/test_stray.py"),
    "no package": ("tests/engine/gmae/test_gmae.py", "import engine\n", "engine/gmae"),
    "wrong folder": ("tests/engine/hand/test_odds.py", "import analysis\n", "test_odds.py"),
    "not mirrored": ("tests/tools/test_tools.py", "", "tests/tools/"),
    "same basename": ("tests/analysis/test_hand.py", "import analysis\n", "test_hand.py"),
    "helper in a mirror": ("tests/engine/helpers.py", "", "tests/engine/helpers.py"),
    "stale mention": ("engine/notes.py", "# see tests/test_gone.py\n", "tests/test_gone.py"),
}


def test_a_mirrored_tree_has_no_problems(tmp_path):
    assert layout_problems(_tree(tmp_path), {"test_layers.py": ""}) == []


@pytest.mark.parametrize("fault", sorted(FAULTS))
def test_each_misplacement_is_named(tmp_path, fault):
    root = _tree(tmp_path)
    rel, text, named = FAULTS[fault]
    (root / rel).parent.mkdir(parents=True, exist_ok=True)
    (root / rel).write_text(text)
    problems = layout_problems(root, {"test_layers.py": ""})
    assert len(problems) == 1 and named in problems[0], problems
