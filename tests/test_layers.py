"""The layer contracts (pyproject ``[tool.importlinter]``) hold: ``lint-imports`` passes.

The folders are the layers (cli > commands > analysis > runs > play > variants >
mahjong | zipai toolkits > floors > jit), function-level imports included; inside play,
families > family entry points > drivers > seats and records > loops; the engine never
imports the analysis layer or the command line, even indirectly. Planted backward imports
show the contracts are not vacuous.
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


def test_no_contract_allows_indirect_imports():
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert "allow_indirect_imports" not in text
    assert 'type = "layers"' in text


def test_no_import_is_ignored():
    """No contract excuses an import: every arrow runs down the layers, none back up."""
    import tomllib

    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    contracts = config["tool"]["importlinter"]["contracts"]
    assert contracts, "no import-linter contract"
    for contract in contracts:
        assert not contract.get("ignore_imports"), contract["name"]
        assert not contract.get("unmatched_ignore_imports_alerting"), contract["name"]
    proc = _lint()
    assert "ignored" not in proc.stdout, proc.stdout


def _planted(tmp_path, module: str, line: str):
    """``lint-imports`` on a copy of the project with ``line`` added to ``module``."""
    pkg = tmp_path / "engine"
    shutil.copytree(
        ROOT / "engine", pkg, ignore=shutil.ignore_patterns("*.json", "*.md", "__pycache__")
    )
    for other in ("analysis", "mjlab"):
        shutil.copytree(
            ROOT / other, tmp_path / other, ignore=shutil.ignore_patterns("__pycache__")
        )
    path = tmp_path / (module.replace(".", "/") + ".py")
    path.write_text(path.read_text(encoding="utf-8") + f"\n{line}  # noqa\n")
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    exe = shutil.which("lint-imports")
    assert exe is not None
    env = {"PYTHONPATH": str(tmp_path), "PATH": str(Path(sys.executable).parent)}
    return subprocess.run([exe], cwd=tmp_path, capture_output=True, text=True, env=env,
                          check=False)  # fmt: skip


@pytest.mark.parametrize(
    ("module", "line", "named"),
    [
        ("engine.tiles", "from engine.runs import run", "engine.runs.run"),
        ("engine.variants._registry", "from engine.play import family", "engine.play.family"),
        ("engine.play.mahjong.loop", "from engine.play import bots", "engine.play.bots"),
        ("engine.runs.dataset", "from analysis import summary", "analysis.summary"),
        (
            "engine.variants.tuidaohu._kernels",
            "from engine.play import records",
            "engine.play.records",
        ),
        ("engine.exact", "from engine import variants", "engine.variants"),
        ("engine.jit.late", "from engine import tiles", "engine.tiles"),
        ("engine.mahjong.layout", "from engine.zipai import cards", "engine.zipai.cards"),
        ("analysis.stats", "from mjlab import cli", "mjlab.cli"),
    ],
)
def test_a_backward_import_breaks_the_contract(tmp_path, module, line, named):
    """The same check on a copy with one upward import added fails, naming it."""
    proc = _planted(tmp_path, module, line)
    assert proc.returncode != 0, proc.stdout
    assert module in proc.stdout and named in proc.stdout


def _cycles(graph) -> list[list[str]]:
    """Groups of modules that import each other around a loop (function-level imports
    included), by Tarjan's strongly connected components; singletons left out."""
    adj = {m: sorted(graph.find_modules_directly_imported_by(m)) for m in sorted(graph.modules)}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    groups = []
    for root in adj:
        if root in index:
            continue
        work = [(root, iter(adj[root]))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on.add(root)
        while work:
            v, it = work[-1]
            w = next(it, None)
            if w is None:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[v])
                if low[v] == index[v]:
                    group = []
                    while True:
                        x = stack.pop()
                        on.discard(x)
                        group.append(x)
                        if x == v:
                            break
                    if len(group) > 1:
                        groups.append(sorted(group))
            elif w not in index:
                index[w] = low[w] = len(index)
                stack.append(w)
                on.add(w)
                work.append((w, iter(adj[w])))
            elif w in on:
                low[v] = min(low[v], index[w])
    return groups


def test_no_import_cycle():
    grimp = pytest.importorskip("grimp")  # import-linter's graph builder
    sys.path.insert(0, str(ROOT))
    try:
        graph = grimp.build_graph("mjlab", "engine", "analysis", include_external_packages=False)
    finally:
        sys.path.remove(str(ROOT))
    assert _cycles(graph) == []


def test_the_cycle_finder_finds_a_planted_cycle():
    class Graph:
        modules = {"a", "b", "c", "d"}
        edges = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}

        def find_modules_directly_imported_by(self, m):
            return self.edges[m]

    assert _cycles(Graph()) == [["a", "b", "c"]]
