"""Compile-time cuts (issue 21.1) that leave every record byte-identical.

- numba compiles a kernel called from kernels once per constant a call site passes:
  the engine's call sites pass no constants to kernels.
- ``play_chunk`` plays its matches with the serial twin of a family's ``play_matches`` on
  numba's thread count of Python threads, instead of numba's parallel version (whose
  lowering links the whole game into three more libraries): the rows must be those of
  the parallel kernel, for any thread count and any chunk.
"""

import contextlib

import numba
import numpy as np
import pytest
from numba.core.dispatcher import Dispatcher

from engine.hand._tables import kernel_tables
from engine.jit import njit as _numba
from engine.jit.njit import kernel, parallel_kernel
from engine.mahjong import layout as L
from engine.play.family import family_of
from engine.runs.run import make_spec, play_chunk
from engine.variants import get as get_variant
from engine.variants import names as variant_names


@kernel(cache=False)
def _scaled(x, k):
    return x * k


@kernel(cache=False)
def _two_sites(x):
    return _scaled(x, 3) + _scaled(x, np.int64(4)) + _scaled(x, x)


# (with NUMBA_DISABLE_JIT=1 the kernel is the plain function: no py_func)
_LINE = getattr(_two_sites, "py_func", _two_sites).__code__.co_firstlineno + 2


def test_numba_compiles_a_callee_per_constant_but_once_for_variables():
    # why the engine's call sites pass variables: a constant types as Literal[int]
    assert _two_sites(5) == 5 * 3 + 5 * 4 + 5 * 5
    assert sorted(str(s) for s in _scaled.signatures) == [
        "(int64, Literal[int](3))",
        "(int64, int64)",
    ]


_LITERAL_TYPES = (bool, int, str)  # numba types these constants as Literal[...]; not floats


def _constant(a, module, params, values, depth=0) -> bool:
    """Whether expression ``a`` of a kernel is a constant numba types as a literal: ``3``,
    ``-1``, ``True``, a module-level int, a local assigned only a constant."""
    import ast

    if isinstance(a, ast.Constant):
        return isinstance(a.value, _LITERAL_TYPES)
    if isinstance(a, ast.UnaryOp):
        return _constant(a.operand, module, params, values, depth)
    if isinstance(a, ast.Name) and a.id not in params:
        if a.id in values:
            v = values[a.id]
            return (
                depth < 3
                and len(v) == 1
                and v[0] is not None
                and _constant(v[0], module, params, values, depth + 1)
            )
        return isinstance(getattr(module, a.id, None), _LITERAL_TYPES)
    return False


def _callee(f, module, params, values):
    """The module-level object a call's function expression names, or None."""
    import ast

    if isinstance(f, ast.Name) and f.id not in params and f.id not in values:
        return getattr(module, f.id, None)
    if isinstance(f, ast.Attribute):
        base = _callee(f.value, module, params, values)
        return getattr(base, f.attr, None) if base is not None else None
    return None


def _constants_passed_to_kernels(module) -> list[str]:
    """Call sites in ``module``'s kernels that pass a constant (:func:`_constant`) to a
    house kernel compiled on its own (not ``inline="always"``), which numba would compile
    once per constant.
    """
    import ast
    import inspect

    found = []
    for fn in ast.walk(ast.parse(inspect.getsource(module))):
        if not isinstance(fn, ast.FunctionDef) or not any(
            "kernel" in ast.unparse(d) for d in fn.decorator_list
        ):
            continue
        params = {a.arg for a in (*fn.args.args, *fn.args.kwonlyargs)}
        values: dict[str, list] = {}
        for node in ast.walk(fn):
            if isinstance(node, ast.Assign):
                for t in node.targets:
                    for n in ast.walk(t):
                        if isinstance(n, ast.Name):
                            values.setdefault(n.id, []).append(node.value)
            elif isinstance(node, ast.AugAssign | ast.AnnAssign | ast.For | ast.comprehension):
                for n in ast.walk(node.target):
                    if isinstance(n, ast.Name):
                        values.setdefault(n.id, []).append(None)
        for node in ast.walk(fn):
            if not isinstance(node, ast.Call):
                continue
            target = _callee(node.func, module, params, values)
            if not isinstance(target, Dispatcher) or target not in _numba._HOUSE:
                continue
            if target.targetoptions.get("inline") == "always":
                continue  # inlined where called: never compiled on its own
            passed = [*node.args, *(k.value for k in node.keywords)]
            if any(_constant(a, module, params, values) for a in passed):
                found.append(f"{module.__name__}:{node.lineno} {ast.unparse(node)[:80]}")
    return found


def test_no_kernel_passes_a_constant_to_a_kernel_compiled_on_its_own():
    """Pass ``np.int64(3)`` (or a variable), not ``3``: the callee compiles once."""
    import importlib

    root = _numba._ROOT
    found = []
    for path in _numba.kernel_sources():
        parts = path.relative_to(root.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        found += _constants_passed_to_kernels(importlib.import_module(name))
    assert not found, "\n".join(found)


def test_the_constant_check_finds_a_constant_passed_to_a_kernel():
    import sys

    assert _constants_passed_to_kernels(sys.modules[__name__]) == [
        f"{__name__}:{_LINE} _scaled(x, 3)"
    ]


@parallel_kernel
def _squares(out):
    for i in numba.prange(out.shape[0]):
        out[i] = i * i


def test_a_parallel_kernels_serial_twin_computes_the_same_in_its_own_cache():
    a, b = np.zeros(1000, np.int64), np.zeros(1000, np.int64)
    _squares(a)
    _squares.serial(b)
    assert np.array_equal(a, b) and b[999] == 999 * 999
    assert _squares.targetoptions.get("parallel") and not _squares.serial.targetoptions.get(
        "parallel"
    )
    # numba keys its cache folders by the source file's directory, so a checkout seen under
    # a second path (a symlink, a copy) holds the same two index files again: count names
    names = sorted({p.name for p in _numba.compiled_dir().rglob("test_compile_cuts._squares*.nbi")})
    assert len(names) == 2 and any(".serial-" in n for n in names), names


def _parallel_rows(spec, lo, hi):
    """The rows of matches [lo, hi) as play_chunk computed them before: numba's prange."""
    v = get_variant(spec.variant)
    play_matches = family_of(v).play_matches
    pols = np.array([L.POLICY_NAMES.index(p) for p in spec.policies], np.int64)
    last = spec.rows(hi - 1, hi)
    rec = np.zeros((spec.rows(lo, hi), L.N_COLS), np.int32)
    from engine.play.bots import seat_bots

    _, bots = seat_bots(v, spec.rules, spec.policies)
    args = (v.pack(spec.rules), pols, bots, spec.seed, lo, hi - lo, spec.match_length, last)
    play_matches(*args, kernel_tables(), rec)
    return rec


_CASES = [
    (variant, policy)
    for variant in variant_names()
    for policy in (*get_variant(variant).policies, "value,efficiency,random,value")
]


@pytest.mark.parametrize("variant, policies", _CASES)
def test_threaded_serial_play_gives_the_parallel_kernels_rows(variant, policies):
    players = get_variant(variant).players
    policies = ",".join(policies.split(",")[:players]) if "," in policies else policies
    spec = make_spec(variant, 16 * 5 + 5, seed=21, policies=policies)  # a short last match
    n = spec.n_matches
    want = _parallel_rows(spec, 0, n)
    assert want[:, :4].any()
    threads = numba.get_num_threads()
    try:
        for t in (1, 2):  # workers 1 and 2
            numba.set_num_threads(min(t, numba.config.NUMBA_NUM_THREADS))
            assert np.array_equal(play_chunk(spec, 0, n), want), t
            # a chunk starting mid-run and one without the last match
            assert np.array_equal(play_chunk(spec, 3, n), want[3 * 16 :]), t
            assert np.array_equal(play_chunk(spec, 1, 4), want[16 : 4 * 16]), t
    finally:
        numba.set_num_threads(threads)


def test_a_chunk_of_one_match_on_two_workers_uses_one():
    spec = make_spec("tuidaohu", 7, seed=3, policies="random")
    threads = numba.get_num_threads()
    try:
        numba.set_num_threads(min(2, numba.config.NUMBA_NUM_THREADS))
        assert np.array_equal(play_chunk(spec, 0, 1), _parallel_rows(spec, 0, 1))
    finally:
        numba.set_num_threads(threads)


def _engine_kernel(func):
    """``func`` compiled as a house kernel (the collector pause is for those), in every
    process (a cold start each time)."""
    return kernel(func, cache=False)


def _engine_pair(add, times):
    """A new engine kernel ``x + add`` (``_callee``) and its caller, ``times`` that."""

    @_engine_kernel
    def _callee(x):
        return x + add

    @_engine_kernel
    def _caller(x):
        return _callee(x) * times

    return _callee, _caller


@contextlib.contextmanager
def _at_compile_starts(record):
    """Calls ``record(name)`` at the start of every compile meanwhile (numba's events)."""
    from numba.core import event

    class Watch(event.Listener):
        def on_start(self, ev):
            record(ev.data["dispatcher"].py_func.__name__)

        def on_end(self, ev):
            pass

    watch = Watch()
    event.register("numba:compile", watch)
    try:
        yield
    finally:
        event.unregister("numba:compile", watch)


def test_the_collector_is_paused_while_an_engine_kernel_compiles():
    import gc

    seen = []

    _probe_callee, _probe = _engine_pair(1, 2)

    with _at_compile_starts(lambda name: seen.append((name, gc.isenabled()))):
        assert gc.isenabled()
        assert _probe(3) == 8
        assert gc.isenabled()  # given back when the compile returns
        # a caller's own pause is left as it is, and not ended by the compile
        gc.disable()
        try:
            assert _probe(2.5) == 7.0
            assert not gc.isenabled()
        finally:
            gc.enable()
    # the callee compiles inside the outer compile, with the collector paused
    assert ("_callee", False) in seen
    assert not any(on for name, on in seen if name == "_callee")


def test_the_collector_pause_ends_when_a_compile_fails():
    import gc

    @_engine_kernel
    def _broken(x):
        return x.no_such_attribute

    with pytest.raises(numba.core.errors.TypingError):
        _broken(1)
    assert gc.isenabled()


def test_a_long_pause_collects_the_youngest_objects_at_a_callees_end(monkeypatch):
    import gc

    monkeypatch.setattr(_numba, "_YOUNG_LIMIT", 0)  # every callee's end is past the limit
    calls = []
    real = gc.collect
    monkeypatch.setattr(gc, "collect", lambda *a: calls.append(a) or real(*a))

    @_engine_kernel
    def _young_callee(x):
        return x - 1

    @_engine_kernel
    def _young(x):
        return _young_callee(x) * 3

    assert _young(4) == 9
    assert calls and all(a == (0,) for a in calls)
    assert gc.isenabled()
