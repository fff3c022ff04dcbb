"""Public APIs only (issue 43.2): nothing in ``engine/`` or ``analysis/`` replaces, patches
or imports the internals of numba, llvmlite or matplotlib.

Each such use is a break waiting for an upgrade (``pyproject.toml`` allows a range of
versions). The check reads the source (ast) and flags:

- an import of a private name or module (``from numba.core.caching import _CacheLocator``,
  ``import matplotlib._x``);
- an assignment, ``del``, ``setattr`` or ``delattr`` on an object of those libraries: a
  name imported from them, a class derived from one, or a name bound from an expression
  that starts at one (``disp = numba.njit(...)(f)``, ``for ax in fig.axes``);
- an assignment to a private attribute of any object but ``self``/``cls`` (a patch of a
  private method of an object passed in);
- a read of a private attribute of those objects (``llvm_ffi.lib._lock``,
  ``getattr(x, "_lock")``), and, in a class derived from one of theirs, a private method
  defined (an override) or one read from ``self`` that the class does not define.

Reading documented attributes (``dispatcher.overloads``, ``cres.library``), calling
public functions and listening to numba's events are allowed.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
LIBS = {"numba", "llvmlite", "matplotlib"}


def _private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def _root(node):
    """The name an expression starts at (``a`` of ``a.b(c)[d].e``), or None."""
    while True:
        if isinstance(node, ast.Name):
            return node.id
        if isinstance(node, ast.Attribute | ast.Subscript | ast.Starred):
            node = node.value
        elif isinstance(node, ast.Call):
            getter = isinstance(node.func, ast.Name) and node.func.id == "getattr"
            node = node.args[0] if getter and node.args else node.func
        else:
            return None


def _targets(node):
    """The names a binding target binds (``a``, ``a, b``, ``[a, *b]``)."""
    if isinstance(node, ast.Name):
        yield node.id
    elif isinstance(node, ast.Tuple | ast.List):
        for elt in node.elts:
            yield from _targets(elt)
    elif isinstance(node, ast.Starred):
        yield from _targets(node.value)


def _attribute_targets(node):
    if isinstance(node, ast.Attribute):
        yield node
    elif isinstance(node, ast.Tuple | ast.List):
        for elt in node.elts:
            yield from _attribute_targets(elt)
    elif isinstance(node, ast.Starred):
        yield from _attribute_targets(node.value)


def findings(source: str, name: str = "<source>") -> list[str]:
    """What :mod:`this test <tests.test_public_api>` flags in ``source``."""
    tree = ast.parse(source)
    out: list[str] = []
    tainted: set[str] = set()  # names of objects of the libraries

    def flag(node, what):
        out.append(f"{name}:{node.lineno}: {what}")

    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and not node.level:
            parts = node.module.split(".")
            if parts[0] in LIBS:
                if any(_private(p) for p in parts):
                    flag(node, f"imports from the private module {node.module}")
                for alias in node.names:
                    if _private(alias.name):
                        flag(node, f"imports the private name {node.module}.{alias.name}")
                    tainted.add(alias.asname or alias.name)
        elif isinstance(node, ast.Import):
            for alias in node.names:
                parts = alias.name.split(".")
                if parts[0] in LIBS:
                    if any(_private(p) for p in parts):
                        flag(node, f"imports the private module {alias.name}")
                    tainted.add(alias.asname or parts[0])

    # names bound from the libraries' objects, and classes derived from theirs
    bindings = []
    derived = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign):
            bindings += [(t, node.value) for t in node.targets]
        elif isinstance(node, ast.AnnAssign | ast.AugAssign | ast.NamedExpr) and node.value:
            bindings.append((node.target, node.value))
        elif isinstance(node, ast.For | ast.AsyncFor | ast.comprehension):
            bindings.append((node.target, node.iter))
        elif isinstance(node, ast.withitem) and node.optional_vars is not None:
            bindings.append((node.optional_vars, node.context_expr))
        elif isinstance(node, ast.ClassDef):
            if any(_root(b) in tainted for b in node.bases):
                derived.append(node)
    grew = True
    while grew:
        grew = False
        for target, value in bindings:
            if _root(value) in tainted:
                for n in _targets(target):
                    if n not in tainted and n not in ("self", "cls"):
                        tainted.add(n)
                        grew = True
        for cls in derived:
            if cls.name not in tainted:
                tainted.add(cls.name)
                grew = True

    for node in ast.walk(tree):
        targets = []
        if isinstance(node, ast.Assign):
            targets = node.targets
        elif isinstance(node, ast.AnnAssign | ast.AugAssign):
            targets = [node.target]
        elif isinstance(node, ast.Delete):
            targets = node.targets
        for target in targets:
            for attr in _attribute_targets(target):
                root = _root(attr.value)
                if root in tainted:
                    flag(attr, f"assigns {ast.unparse(attr)} (an object of {sorted(LIBS)})")
                elif _private(attr.attr) and root not in ("self", "cls"):
                    flag(attr, f"assigns the private attribute {ast.unparse(attr)}")
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.args:
            fn, obj = node.func.id, node.args[0]
            named = node.args[1] if len(node.args) > 1 else None
            private_name = (
                isinstance(named, ast.Constant)
                and isinstance(named.value, str)
                and _private(named.value)
            )
            if fn in ("setattr", "delattr") and (_root(obj) in tainted or private_name):
                flag(node, f"{fn} on {ast.unparse(obj)}")
            if fn in ("getattr", "hasattr") and private_name and _root(obj) in tainted:
                flag(node, f"reads the private attribute {named.value} of {ast.unparse(obj)}")
        if (
            isinstance(node, ast.Attribute)
            and isinstance(node.ctx, ast.Load)
            and _private(node.attr)
            and _root(node.value) in tainted
        ):
            flag(node, f"reads the private attribute {ast.unparse(node)}")

    for cls in derived:
        own = set()
        for item in ast.walk(cls):
            if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef):
                own.add(item.name)
            elif isinstance(item, ast.Attribute) and isinstance(item.ctx, ast.Store):
                if _root(item.value) == "self":
                    own.add(item.attr)
        for item in cls.body:
            if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef) and _private(item.name):
                flag(item, f"{cls.name} overrides the private method {item.name} of its base")
        for item in ast.walk(cls):
            if (
                isinstance(item, ast.Attribute)
                and isinstance(item.ctx, ast.Load)
                and isinstance(item.value, ast.Name)
                and item.value.id == "self"
                and _private(item.attr)
                and item.attr not in own
            ):
                flag(item, f"{cls.name} reads its base's private {item.attr}")
    return out


def _sources():
    for folder in ("engine", "analysis"):
        yield from sorted((ROOT / folder).rglob("*.py"))


def test_engine_and_analysis_use_only_public_apis_of_numba_llvmlite_and_matplotlib():
    found = []
    for path in _sources():
        found += findings(path.read_text(encoding="utf-8"), str(path.relative_to(ROOT)))
    assert not found, "\n".join(found)


_PATCHES = {
    "from numba.core.caching import _CacheLocator\n": "private name",
    "import matplotlib._api\n": "private module",
    "import numba\nnumba.config.OPT = 2\n": "assigns numba.config.OPT",
    "from numba.core.targetconfig import TargetConfig\nTargetConfig.__eq__ = f\n": "assigns",
    "import numba\ndisp = numba.njit(f)\ndisp.get_call_template = g\n": "assigns",
    "import numba\ndef f(func):\n    disp = numba.njit(func)\n    disp._cache = 1\n": "assigns",
    "def f(fig):\n    fig._layout_engine = None\n": "private attribute",
    "def f(fig):\n    for ax in fig.axes:\n        ax.xaxis._update_ticks = g\n": "private attr",
    "from llvmlite.binding import ffi\nx = getattr(ffi.lib, '_lock')\n": "reads the private",
    "from llvmlite.binding import ffi\nx = ffi.lib._lock\n": "reads the private",
    "from llvmlite.binding import ffi\nx = getattr(getattr(ffi, 'lib'), '_lock')\n": "private",
    "from matplotlib.font_manager import fontManager\nfontManager._find_fonts_by_props(p)\n": (
        "reads the private"
    ),
    "import numba\nsetattr(numba.config, 'OPT', 2)\n": "setattr",
    (
        "from matplotlib.backends.backend_agg import RendererAgg\n"
        "class R(RendererAgg):\n    def _get_font_height_metrics(self, p):\n        pass\n"
    ): "overrides the private method",
    (
        "from matplotlib.backends.backend_agg import RendererAgg\n"
        "class R(RendererAgg):\n    def draw_text(self, *a):\n        self._prepare_font(a)\n"
    ): "reads its base's private",
}


@pytest.mark.parametrize("source", sorted(_PATCHES))
def test_the_check_finds_each_kind_of_patch(source):
    found = findings(source)
    assert found and any(_PATCHES[source] in f for f in found), found


def test_the_check_allows_public_use():
    ok = (
        "import numba\nfrom numba.core import event\n"
        "disp = numba.njit(f)\ncres = disp.overloads[args]\n"
        "addr = cres.library.get_pointer_to_function(cres.fndesc.llvm_func_name)\n"
        "event.register('numba:compile', listener)\n"
        "class L(event.Listener):\n    def on_start(self, ev):\n        self._depth = 1\n"
        "    def on_end(self, ev):\n        self._depth -= 1\n"
        "def draw(fig):\n    fig.set_layout_engine('none')\n    ax = fig.subplots()\n"
        "    ax.set_title('t')\n"
    )
    assert findings(ok) == []
