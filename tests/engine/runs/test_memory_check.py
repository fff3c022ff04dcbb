"""The up-front memory check reads the cgroup's limit (issue 46.7).

Under a 700 MB container limit, 3M deals into one file were admitted (the check read the
machine's ``MemAvailable``) and the run was killed by the kernel with no message. These
tests give ``engine.runs.run`` a cgroup tree of their own, as the kernel lays it out.
"""

import pytest

from engine.errors import UsageError
from engine.runs import run

MB = 2**20


def _tree(tmp_path, lines: str, files: dict) -> None:
    """A fake ``/proc/self/cgroup`` and ``/sys/fs/cgroup`` under ``tmp_path``."""
    proc = tmp_path / "cgroup"
    proc.write_text(lines)
    for rel, text in files.items():
        path = tmp_path / "sys" / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


@pytest.fixture
def fake(tmp_path, monkeypatch):
    monkeypatch.setattr(run, "_PROC_CGROUP", str(tmp_path / "cgroup"))
    monkeypatch.setattr(run, "_CGROUP_ROOT", str(tmp_path / "sys"))
    monkeypatch.setattr(run, "_machine_memory", lambda: 16 * 2**30)
    return lambda lines, files: _tree(tmp_path, lines, files)


def test_a_cgroup_v2_limit_is_read(fake):
    fake(
        "0::/user.slice/job\n",
        {
            "user.slice/job/memory.max": f"{700 * MB}\n",
            "user.slice/job/memory.current": f"{150 * MB}\n",
            "user.slice/job/memory.stat": f"anon 1\ninactive_file {50 * MB}\nactive_file 9\n",
            "user.slice/memory.max": "max\n",
        },
    )
    assert run._available_memory() == 600 * MB  # 700 - (150 - 50 reclaimable)
    with pytest.raises(UsageError, match="cgroup memory limit.*DIR/"):
        run.check_memory(3_000_000, "give --out DIR/")
    run.check_memory(500_000, "give --out DIR/")  # 305 MB: fits


def test_a_cgroup_v1_limit_and_a_tighter_parent(fake):
    fake(
        "4:memory:/box/run\n3:cpu:/box\n",
        {
            "memory/box/run/memory.limit_in_bytes": "9223372036854771712\n",  # none
            "memory/box/run/memory.usage_in_bytes": f"{100 * MB}\n",
            "memory/box/memory.limit_in_bytes": f"{400 * MB}\n",
            "memory/box/memory.usage_in_bytes": f"{120 * MB}\n",
            "memory/box/memory.stat": f"total_inactive_file {20 * MB}\n",
        },
    )
    assert run._available_memory() == 300 * MB
    with pytest.raises(UsageError, match="GiB available under this process's cgroup"):
        run.check_memory(1_000_000, "x")


def test_a_container_sees_its_cgroup_as_the_root(fake):
    fake("0::/\n", {"memory.max": f"{256 * MB}\n", "memory.current": "0\n"})
    assert run._available_memory() == 256 * MB


def test_no_limit_leaves_the_machines_memory(fake):
    fake("0::/a\n4:memory:/a\n", {"a/memory.max": "max\n"})
    assert run._cgroup_memory() is None
    assert run._available_memory() == 16 * 2**30
    run.check_memory(3_000_000, "x")


def test_the_command_line_refuses_before_playing(fake, tmp_path, capsys):
    from mjlab.cli import main

    fake("0::/\n", {"memory.max": f"{700 * MB}\n", "memory.current": f"{100 * MB}\n"})
    out = tmp_path / "big.parquet"
    assert main(["simulate", "lishui", "--deals", "3000000", "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "cgroup memory limit" in err and "DIR/" in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["cgroup", "sys"]
