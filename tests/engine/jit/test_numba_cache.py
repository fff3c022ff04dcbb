"""The compile cache is keyed by exactly the sources compiled code can depend on.

numba stamps a cached function with its own file only, so the cache folder is named by a
hash of every kernel module and every engine module they import from (engine.jit.njit). A
module left out by mistake would let edited constants or callees run stale; one put in
needlessly costs a recompile after Python-only edits.
"""

from __future__ import annotations

import ast
from pathlib import Path

from engine.jit.njit import _import_nodes, kernel_sources, source_hash

ENGINE = Path(__file__).resolve().parents[3] / "engine"


def _names(paths, root):
    return {str(p.relative_to(root.resolve())) for p in paths}


def test_the_engines_kernel_sources():
    names = _names(kernel_sources(), ENGINE)
    # kernels, the constants and options they compile in, and the callees across modules
    for must in (
        "jit/njit.py",
        "tiles.py",
        "rng.py",
        "mahjong/layout.py",
        "play/mahjong/loop.py",
        "mahjong/bots.py",
        "hand/_kernels.py",
        "variants/zhuji/_kernels.py",
        "variants/lishui/_kernels.py",
        "play/zipai/loop.py",
        "zipai/layout.py",
        "_exact_kernels.py",
    ):
        assert must in names, must
    # Python-only modules: editing them keeps the compiled cache
    pure_modules = ("runs/dataset.py", "runs/run.py", "play/mahjong/__init__.py")
    pure_modules += ("variants/zhuji/__init__.py",)
    for pure in pure_modules:
        assert pure not in names, pure


def test_the_quick_import_scan_sees_every_import_statement():
    # the key parses only import statements (start-up cost); none may be missed
    for path in ENGINE.rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        full = [
            ast.dump(n)
            for n in ast.walk(ast.parse(text))
            if isinstance(n, (ast.Import, ast.ImportFrom))
        ]
        quick = [ast.dump(n) for n in _import_nodes(text)]
        assert sorted(quick) == sorted(full), path


def _tree(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


def test_hash_follows_kernel_imports_and_ignores_pure_python(tmp_path):
    root = tmp_path / "engine"
    _tree(
        root,
        {
            "__init__.py": "",
            "jit/__init__.py": "",
            "jit/njit.py": "def kernel(f):\n    return f\n",
            "k.py": (
                "from .jit.njit import kernel\nfrom .consts import X\nfrom .pkg import sub\n"
                "from engine.deep.c2 import Y\n\n\n@kernel\ndef f():\n    return X + Y\n"
            ),
            "consts.py": "X = 1\n",
            "deep/__init__.py": "",
            "deep/c2.py": "Y = 2\n",
            "pkg/__init__.py": "W = 0\n",
            "pkg/sub.py": "Z = 3\n",
            "py.py": "from .k import f\n",
        },
    )
    got = _names(kernel_sources(root), root)
    assert got == {"k.py", "jit/njit.py", "consts.py", "deep/c2.py", "pkg/sub.py"}
    before = source_hash(root)
    (root / "py.py").write_text("from .k import f\n\nVALUE = 2\n", encoding="utf-8")
    assert source_hash(root) == before
    (root / "pkg" / "__init__.py").write_text("W = 1\n", encoding="utf-8")
    assert source_hash(root) == before
    (root / "deep" / "c2.py").write_text("Y = 5\n", encoding="utf-8")
    changed = source_hash(root)
    assert changed != before
    (root / "consts.py").write_text("X = 7\n", encoding="utf-8")
    assert source_hash(root) != changed
