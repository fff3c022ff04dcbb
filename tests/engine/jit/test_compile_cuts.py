"""Compile-time cuts (issue 21.1) that leave every record byte-identical.

- A kernel called from kernels with different constants compiles once, for the plain
  types (engine.jit.njit: numba would compile one version per constant).
- ``play_chunk`` plays its matches with the serial twin of a family's ``play_matches`` on
  numba's thread count of Python threads, instead of numba's parallel version (whose
  lowering links the whole game into three more libraries): the rows must be those of
  the parallel kernel, for any thread count and any chunk.
"""

import contextlib

import numba
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.hand._tables import kernel_tables
from engine.jit import njit as _numba
from engine.jit.njit import kernel, parallel_kernel
from engine.mahjong import layout as L
from engine.play.family import family_of
from engine.runs.run import make_spec, play_chunk
from engine.variants import get as get_variant
from engine.variants import names as variant_names


@kernel
def _scaled(x, k):
    return x * k


@kernel
def _two_sites(x):
    return _scaled(x, 3) + _scaled(x, 4) + _scaled(x, x)


def test_a_callee_compiles_once_whatever_constants_its_callers_pass(tmp_path, monkeypatch):
    monkeypatch.setattr(_numba, "_COMPILED", tmp_path)  # a cold cache for these kernels
    assert _two_sites(5) == 5 * 3 + 5 * 4 + 5 * 5
    assert [str(s) for s in _scaled.signatures] == ["(int64, int64)"]


@parallel_kernel
def _squares(out):
    for i in numba.prange(out.shape[0]):
        out[i] = i * i


def test_a_parallel_kernels_serial_twin_computes_the_same_in_its_own_cache(tmp_path, monkeypatch):
    monkeypatch.setattr(_numba, "_COMPILED", tmp_path)
    a, b = np.zeros(1000, np.int64), np.zeros(1000, np.int64)
    _squares(a)
    _squares.serial(b)
    assert np.array_equal(a, b) and b[999] == 999 * 999
    assert _squares.targetoptions.get("parallel") and not _squares.serial.targetoptions.get(
        "parallel"
    )
    names = sorted(p.name for p in tmp_path.rglob("*.nbi"))
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
    """``func`` compiled as a kernel of the engine (the collector pause is for those)."""
    func.__module__ = "engine._gc_probe"
    return kernel(func)


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


def test_the_collector_is_paused_while_an_engine_kernel_compiles(tmp_path, monkeypatch):
    import gc

    monkeypatch.setattr(_numba, "_COMPILED", tmp_path)  # a cold cache: these compile
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


def test_the_collector_pause_ends_when_a_compile_fails(tmp_path, monkeypatch):
    import gc

    monkeypatch.setattr(_numba, "_COMPILED", tmp_path)

    @_engine_kernel
    def _broken(x):
        return x.no_such_attribute

    with pytest.raises(numba.core.errors.TypingError):
        _broken(1)
    assert gc.isenabled()


def test_a_long_pause_collects_the_youngest_objects_at_a_callees_end(tmp_path, monkeypatch):
    import gc

    monkeypatch.setattr(_numba, "_COMPILED", tmp_path)
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


# --- numba's bookkeeping, cheap during an engine compile (_CheapBookkeeping) ------------


def _flag_options():
    from numba.core.compiler import Flags

    a = Flags()
    return [k for k in Flags.options if isinstance(getattr(a, k), bool)]


@settings(max_examples=300, deadline=None)
@given(st.data())
def test_the_flag_shortcuts_compare_and_hash_as_numba_does(data):
    from numba.core.compiler import Flags

    names = _flag_options()
    made = []
    for _ in range(2):
        f = Flags()
        for name in data.draw(st.lists(st.sampled_from(names), max_size=6, unique=True)):
            setattr(f, name, data.draw(st.booleans()))
        made.append(f)
    a, b = made
    eq, hashed = _numba._ORIGINAL_FLAGS
    assert _numba._flags_eq(a, b) == eq(a, b)
    assert _numba._flags_eq(a, a) and _numba._flags_eq(b, a) == eq(b, a)
    assert _numba._flags_hash(a) == hashed(a)
    other = object()
    assert _numba._flags_eq(a, other) is eq(a, other)  # NotImplemented: not a flag


def test_numba_bookkeeping_is_cheap_during_an_engine_compile_and_restored_after(
    tmp_path, monkeypatch
):
    from numba.core.targetconfig import TargetConfig

    monkeypatch.setattr(_numba, "_COMPILED", tmp_path)
    before = _numba._numba_lock_callbacks()
    assert before, "numba registers its LLVM lock events"
    seen = []

    def record(name):
        seen.append(
            (
                name,
                TargetConfig.__eq__ is _numba._flags_eq,
                TargetConfig.__hash__ is _numba._flags_hash,
                len(_numba._numba_lock_callbacks()),
            )
        )

    _cheap_callee, _cheap = _engine_pair(2, 5)

    @_engine_kernel
    def _cheap_broken(x):
        return _cheap_callee(x).no_such_attribute

    @numba.njit
    def _outside(x):
        return x - 1

    with _at_compile_starts(record):
        assert _cheap(1) == 15
        with pytest.raises(numba.core.errors.TypingError):
            _cheap_broken(1)
        assert _outside(3) == 2
    # inside the engine's compile (the callee's start comes after the outer start)
    assert ("_callee", True, True, 0) in seen
    # a compile outside the engine sees numba as it is
    assert ("_outside", False, False, len(before)) in seen
    # given back after each outermost compile, the failed one too
    assert TargetConfig.__eq__ is _numba._ORIGINAL_FLAGS[0]
    assert TargetConfig.__hash__ is _numba._ORIGINAL_FLAGS[1]
    assert _numba._numba_lock_callbacks() == before
