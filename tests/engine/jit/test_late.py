"""Late calls (engine.jit.late): a callee is compiled only when an entry's run can reach it.

The 字牌 loop calls its deal, claims, strong decisions and observations late (issue 21.1:
its first compile was a minute of CPU); the mahjong loop its strong decisions and
observations. These tests build a small table of their own.
"""

import numpy as np
import pytest
from numba.core import types

from engine.abi import P_EFFICIENCY, P_RANDOM, P_STRONG, P_VALUE
from engine.jit import njit as _numba
from engine.jit.late import LateTable, binding
from engine.jit.njit import kernel
from engine.play.zipai import loop as Z

TABLE = LateTable("mjlab_test_late", 3)
# the test kernels compile in every process (cache=False): a cold start each time


@kernel(cache=False)
def _twice(x, out):
    out[0] = 2 * x
    return out[0] + 1


@kernel(cache=False)
def _never(x):
    return x - 1


_late_twice = TABLE.late(_twice, types.int64)
_late_never = TABLE.late(_never, types.int64)


@kernel(cache=False)
def _entry(x, out, reach_never):
    r = _late_twice(x, out)
    if reach_never:
        r += _late_never(x)
    return r


def _needs(args):
    return (_twice,) + ((_never,) if args["reach_never"] else ())


entry = binding(_entry, TABLE, _needs)


def test_a_late_callee_compiles_when_an_entry_needs_it_and_not_before():
    out = np.zeros(1, np.int64)
    assert entry(20, out, False) == 41 and out[0] == 40
    assert len(_twice.signatures) == 1
    assert _never.signatures == []  # its call site is compiled, the kernel is not
    assert TABLE.address(1) == 0 and TABLE.address(0) != 0
    # the call site's argument types are kept beside the compiled code for later runs
    assert (_numba.compiled_dir() / "late" / f"{__name__}._never.sig").exists()
    # a call the entry's needs did not name raises instead of jumping to address 0
    with pytest.raises(RuntimeError, match="_never called before it was bound"):
        _entry(20, out, True)
    assert entry(20, out, True) == 41 + 19
    assert len(_never.signatures) == 1


_SUB = """
import sys

import numpy as np
from numba.core import types

from engine.jit.late import LateTable, binding
from engine.jit.njit import kernel

T = LateTable("mjlab_test_late_sub", 1)


@kernel
def _inc(x):
    return x + 1


_late_inc = T.late(_inc, types.int64)


@kernel
def _entry(x):
    return _late_inc(x)


print(binding(_entry, T, lambda a: (_inc,))(np.int64(41)))
"""


def test_an_entry_loaded_without_the_record_of_its_late_calls_types_them_again(tmp_path):
    """A later process loads the entry from the cache and reads the argument types of its
    late call sites from their record beside it; where that record is gone (removed by
    another process), the entry is typed again instead of failing to bind."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    (tmp_path / "latemod.py").write_text(_SUB, encoding="utf-8")
    repo = Path(__file__).resolve().parents[3]
    env = {**os.environ, "MJLAB_CACHE_DIR": str(tmp_path / "cache"),
           "PYTHONPATH": os.pathsep.join((str(repo), str(tmp_path)))}  # fmt: skip
    env.pop("NUMBA_CACHE_DIR", None)

    def run():
        return subprocess.run([sys.executable, "-c", "import latemod"], cwd=tmp_path, env=env,
                              capture_output=True, text=True, timeout=600)  # fmt: skip

    first = run()
    assert first.returncode == 0 and first.stdout.split() == ["42"], first.stderr
    (record,) = (tmp_path / "cache").rglob("latemod._inc.sig")
    record.unlink()
    again = run()
    assert again.returncode == 0 and again.stdout.split() == ["42"], again.stderr
    assert list((tmp_path / "cache").rglob("latemod._inc.sig"))  # recorded again


RET_TABLE = LateTable("mjlab_test_late_ret", 1)


@kernel(cache=False)
def _half(x):
    return x / 2  # float64


_late_half = RET_TABLE.late(_half, types.int64)


@kernel(cache=False)
def _caller(x):
    return _late_half(x)


def test_a_late_kernel_declared_with_the_wrong_return_type_is_refused():
    bound = binding(_caller, RET_TABLE, lambda args: (_half,))
    with pytest.raises(TypeError, match="returns float64, declared late as int64"):
        bound(3)


def test_a_table_refuses_more_kernels_than_it_has_slots():
    table = LateTable("mjlab_test_late_full", 1)
    table.late(_never, types.int64)
    with pytest.raises(ValueError, match="more than 1 late kernels"):
        table.late(_twice, types.int64)


def test_the_zipai_loop_reaches_the_strong_kernels_only_for_a_strong_seat():
    plain = Z._late_needed(
        {"policies": np.array([P_RANDOM, P_EFFICIENCY, P_VALUE]), "obs": np.zeros((1, 4))}
    )
    assert plain == Z._DEAL_LATE and Z._DEAL_LATE[:2] == (Z.play_deal, Z._claims)
    strong = Z._late_needed({"policies": np.array([P_VALUE, P_STRONG, P_VALUE])})
    assert set(strong) == {*Z._DEAL_LATE, *Z._STRONG_LATE}
    assert strong[:2] == (Z.play_deal, Z._claims)  # callers before their late callees
    observed = Z._late_needed({"policies": np.array([P_VALUE] * 3), "obs": np.zeros((9, 4))})
    assert observed == (*Z._DEAL_LATE, Z._observe_discard, Z.observe_outcome)


def _mahjong_rules(name):
    from engine import variants as registry

    v = registry.get(name)
    return v.pack(v.resolve(None))


@pytest.mark.parametrize("name", ["tuidaohu", "lishui", "zhuji", "fuzhou"])
def test_the_mahjong_loop_reaches_a_rules_phase_only_when_its_rule_is_on(name):
    from engine.mahjong import layout as L
    from engine.play.mahjong import loop as G

    rules = _mahjong_rules(name)
    reached = G._late_by_rules(rules)
    expect = {
        G._choose_chow: rules[L.R_CHOW] == 1,
        G._opening: rules[L.R_OPENING] == 1,
        G._deal_flowers: rules[L.R_FLOWER_REPLACE] == 1,
        G._replace_flowers: rules[L.R_FLOWER_REPLACE] == 1,
        G._last_group: rules[L.R_LAST_GROUP] > 0,
    }
    assert set(reached) == {k for k, on in expect.items() if on}
    plain = G._late_in_deal({"rules": rules, "policies": np.array([P_VALUE] * 4)})
    # no strong seat, no observations: the rules' phases and the other policies' decisions
    assert plain == reached + G._PLAIN_LATE
    # a strong seat: its decisions, its 吃 only where the rules have 吃
    chow = {G._strong_chow} if rules[L.R_CHOW] == 1 else set()
    mixed = G._late_in_deal({"rules": rules, "policies": np.array([P_VALUE, P_STRONG] * 2)})
    assert set(mixed) == {*reached, *G._STRONG_LATE, *chow, *G._PLAIN_LATE}
    assert G._strong_view in mixed
    # every seat strong: none of the other policies' decisions
    strong = G._late_in_deal({"rules": rules, "policies": np.array([P_STRONG] * 4)})
    assert set(strong) == {*reached, *G._STRONG_LATE, *chow}
    assert G.choose_discard not in strong and G._plain_pong not in strong
    # random seats decide inline: with strong ones, strong's decisions alone
    rand = G._late_in_deal({"rules": rules, "policies": np.array([P_RANDOM, P_STRONG] * 2)})
    assert set(rand) == {*reached, *G._STRONG_LATE, *chow}
    assert G._late_in_deal({"rules": rules, "policies": np.array([P_RANDOM] * 4)}) == reached


def test_the_first_run_of_the_readme_compiles_no_rules_phase():
    # 推倒胡 has no 吃, no opening wins, no 补花 and no last group (RULEBOOK); each
    # phase is still reached by a variant's defaults, so the record tests play it
    from engine.play.mahjong import loop as G

    assert G._late_by_rules(_mahjong_rules("tuidaohu")) == ()
    every = set().union(*(G._late_by_rules(_mahjong_rules(n)) for n in ("lishui", "fuzhou")))
    assert every == {G._choose_chow, G._opening, G._deal_flowers, G._replace_flowers, G._last_group}


def test_the_mahjong_loop_reaches_the_final_locations_only_when_asked_for_them():
    from engine.play.mahjong import loop as G

    rules = _mahjong_rules("tuidaohu")
    pols = np.array([P_VALUE] * 4)
    zones = np.zeros((G.FINAL_ZONES, G.N_PHYS), np.int16)
    assert G._final_state in G._late_in_deal({"rules": rules, "policies": pols, "final": zones})
    by_deal = np.zeros((3, G.FINAL_ZONES, G.N_PHYS), np.int16)
    assert G._final_state in G._late_in_deal(
        {"rules": rules, "policies": pols, "final_out": by_deal}
    )
    for none in (np.zeros((1, 1), np.int16), np.zeros((0, 1, 1), np.int16)):
        assert G._late_in_deal({"rules": rules, "policies": pols, "final": none}) == G._PLAIN_LATE


def test_the_mahjong_loop_reaches_the_log_events_only_for_a_replay_log():
    from engine.mahjong import layout as L
    from engine.play.mahjong import loop as G

    rules = _mahjong_rules("fuzhou")
    pols = np.array([P_VALUE] * 4)
    log = np.zeros((L.MAX_EVENTS, 5), np.int32)
    logged = G._late_in_deal({"rules": rules, "policies": pols, "log": log})
    assert set(G._LOG_LATE) <= set(logged) and G._log_wait in G._LOG_LATE
    for none in (None, np.zeros((1, 5), np.int32)):
        args = {"rules": rules, "policies": pols} | ({} if none is None else {"log": none})
        assert not set(G._LOG_LATE) & set(G._late_in_deal(args))
