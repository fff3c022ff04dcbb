"""Issue 17: nothing lost, nothing mixed, no traceback (locks, checksums, overwrite, exit codes).

Each test here is one bullet of the issue's "Why" or one fault of its item 8; every bullet of
"Why" has a test that fails on the code before it (the issue's closing note lists them).
"""

import errno
import json
import os
import signal
import socket
import subprocess
import sys
import textwrap

import pyarrow.parquet as pq
import pytest

from mjlab.cli import main

SIM = ["simulate", "tuidaohu", "--deals", "320", "--policy", "random", "--quiet"]


def run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def one_line(err: str) -> bool:
    return err.count("\n") == 1 and "Traceback" not in err


def dataset(tmp_path, capsys, name="d", *extra):
    folder = tmp_path / name
    code, _, err = run(capsys, *SIM, "--chunk-matches", "4", "--out", f"{folder}/", *extra)
    assert code == 0, err
    return folder


# --------------------------------------------------------------------- two writers, one folder
HOLD = textwrap.dedent(
    """
    import sys, time
    from engine.fileio import OutputLock
    OutputLock(sys.argv[1], "simulate tuidaohu --deals 320 --seed 9").acquire()
    print("held", flush=True)
    time.sleep(60)
    """
)


def test_a_second_writer_is_refused_naming_the_holder(tmp_path, capsys):
    folder = tmp_path / "conc"
    folder.mkdir()
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLD, str(folder)], stdout=subprocess.PIPE, text=True
    )
    try:
        assert holder.stdout.readline().strip() == "held"
        code, _, err = run(capsys, *SIM, "--rule", "horses=2", "--out", f"{folder}/")
        assert code == 2 and one_line(err)
        assert f"pid {holder.pid}" in err and "another run is writing it" in err
        assert sorted(p.name for p in folder.iterdir()) == [".mjlab.lock"]
    finally:
        holder.kill()
        holder.wait()
        holder.stdout.close()
    # the holder died (kill -9): its lock is stale, taken over with a message
    code, _, err = run(capsys, *SIM, "--chunk-matches", "4", "--out", f"{folder}/")
    assert code == 0 and "taking over the stale lock" in err and str(holder.pid) in err
    assert not (folder / ".mjlab.lock").exists()


def test_two_processes_at_once_never_mix(tmp_path):
    folder = tmp_path / "conc"
    cmd = [sys.executable, "-m", "mjlab.cli", *SIM, "--chunk-matches", "2", "--out", f"{folder}/"]
    a = subprocess.Popen(cmd, stderr=subprocess.PIPE, text=True)
    b = subprocess.Popen([*cmd, "--rule", "horses=2"], stderr=subprocess.PIPE, text=True)
    (ea, eb) = (a.communicate()[1], b.communicate()[1])
    codes = sorted([a.returncode, b.returncode])
    # one wins; the other is refused (held) or, if it came after, refused as another run
    assert codes == [0, 2], (ea, eb)
    loser = ea if a.returncode else eb
    assert one_line(loser) and ("another run is writing" in loser or "different run" in loser)
    rules = {json.loads(pq.read_schema(f).metadata[b"mjlab"])["rules_id"] for f in folder.iterdir()
             if f.suffix == ".parquet"}  # fmt: skip
    assert len(rules) == 1


def test_a_starting_run_leaves_a_live_runs_temp_file(tmp_path, capsys):
    folder = dataset(tmp_path, capsys)
    chunk = sorted(folder.glob("chunk-*.parquet"))[-1]
    chunk.unlink()
    live = folder / f".{chunk.name}~{socket.gethostname()}~{os.getppid()}~beef.tmp"
    dead = folder / f".{chunk.name}~{socket.gethostname()}~{2**22 + 12345}~dead.tmp"
    live.write_bytes(b"in flight")
    dead.write_bytes(b"left by a killed run")
    code, _, err = run(capsys, *SIM, "--chunk-matches", "4", "--out", f"{folder}/")
    assert code == 0, err
    assert live.read_bytes() == b"in flight" and not dead.exists() and chunk.exists()


# --------------------------------------------------------------------- summarize: copies and mixes
def test_summarize_refuses_a_copied_chunk(tmp_path, capsys):
    folder = dataset(tmp_path, capsys)
    first = sorted(folder.glob("chunk-*.parquet"))[0]
    for name in ("copy.parquet", "chunk-000000004-000000008.parquet.bak.parquet"):
        (folder / name).write_bytes(first.read_bytes())
        code, _, err = run(capsys, "summarize", folder)
        assert code == 2 and one_line(err) and name in err, err
        (folder / name).unlink()
    code, out, _ = run(capsys, "summarize", folder, "--json")
    assert code == 0 and json.loads(out)["deals"] == 320


def test_summarize_refuses_chunks_of_two_seeds(tmp_path, capsys):
    a = dataset(tmp_path, capsys, "a")
    b = dataset(tmp_path, capsys, "b", "--seed", "1")
    last = sorted(b.glob("chunk-*.parquet"))[-1]
    os.replace(last, a / last.name)  # a chunk of seed 1 in place of one of seed 0
    code, _, err = run(capsys, "summarize", a)
    assert code == 2 and one_line(err) and "different runs" in err and "seed" in err


def test_summarize_refuses_files_that_are_not_mjlab_output(tmp_path, capsys):
    folder = dataset(tmp_path, capsys)
    import pandas as pd

    pd.DataFrame({"x": [1]}).to_parquet(folder / "notes.parquet")
    code, _, err = run(capsys, "summarize", folder)
    assert code == 2 and one_line(err) and "notes.parquet" in err


# --------------------------------------------------------------------- damaged chunks
def _flip(path, n=40):
    data = bytearray(path.read_bytes())
    size = len(data) - 8 - int.from_bytes(data[-8:-4], "little")  # the data, footer intact
    for i in range(n):
        data[size // 2 + i] ^= 0x5A
    path.write_bytes(bytes(data))


def test_a_flipped_byte_chunk_is_replayed_on_resume_and_refused_by_summarize(tmp_path, capsys):
    folder = dataset(tmp_path, capsys)
    victim = sorted(folder.glob("chunk-*.parquet"))[2]
    good = victim.read_bytes()
    _flip(victim)
    code, _, err = run(capsys, "summarize", folder)
    assert code == 2 and one_line(err) and victim.name in err and "damaged" in err
    assert "ZSTD" not in err
    code, _, err = run(capsys, *SIM, "--chunk-matches", "4", "--out", f"{folder}/")
    assert code == 0 and victim.name in err and "playing it again" in err
    assert victim.read_bytes() == good


def test_a_truncated_chunk_is_refused_by_summarize_and_replayed_on_resume(tmp_path, capsys):
    folder = dataset(tmp_path, capsys)
    victim = sorted(folder.glob("chunk-*.parquet"))[1]
    good = victim.read_bytes()
    victim.write_bytes(good[:-100])
    code, _, err = run(capsys, "summarize", folder)
    assert code == 2 and one_line(err) and victim.name in err
    code, _, err = run(capsys, *SIM, "--chunk-matches", "4", "--out", f"{folder}/")
    assert code == 0 and victim.name in err and "playing it again" in err
    assert victim.read_bytes() == good


def test_a_damaged_identity_is_replayed_and_a_foreign_chunk_name_never_touched(tmp_path, capsys):
    folder = dataset(tmp_path, capsys)
    victim = sorted(folder.glob("chunk-*.parquet"))[3]
    good = victim.read_bytes()
    assert good.count(b'"seed": 0,') == 1  # in the footer's JSON, outside the hashed data
    victim.write_bytes(good.replace(b'"seed": 0,', b'"seed": 7,'))  # its checksum not redone
    code, _, err = run(capsys, "summarize", folder)
    assert code == 2 and one_line(err) and victim.name in err and "damaged" in err
    argv = [*SIM, "--chunk-matches", "4", "--out", f"{folder}/"]
    code, _, err = run(capsys, *argv)  # damaged, not "another run": played again
    assert code == 0 and "playing it again" in err and victim.read_bytes() == good
    import pandas as pd

    for foreign in (b"my notes", None):  # not Parquet; Parquet without mjlab metadata
        victim.unlink()
        if foreign is None:
            pd.DataFrame({"x": [1]}).to_parquet(victim)
        else:
            victim.write_bytes(foreign)
        before = victim.read_bytes()
        code, _, err = run(capsys, *argv)
        assert code == 2 and one_line(err) and "not a mjlab chunk" in err and victim.name in err
        assert victim.read_bytes() == before


# --------------------------------------------------------------------- no silent overwrite
def test_simulate_does_not_overwrite_another_run_or_a_foreign_file(tmp_path, capsys):
    out = tmp_path / "x.parquet"
    code, _, _ = run(capsys, *SIM, "--out", out)
    assert code == 0
    before = out.read_bytes()
    code, _, err = run(capsys, *SIM, "--seed", "5", "--out", out)
    assert code == 2 and one_line(err) and "another run" in err and "seed" in err
    assert out.read_bytes() == before
    code, text, _ = run(capsys, "simulate", *SIM[1:-1], "--out", out)  # the same run
    assert code == 0 and "already holds this run" in text and out.read_bytes() == before
    notes = tmp_path / "notes.parquet"
    notes.write_text("my notes")
    code, _, err = run(capsys, *SIM, "--out", notes)
    assert code == 2 and one_line(err) and "--force" in err and notes.read_text() == "my notes"
    code, _, _ = run(capsys, *SIM, "--out", notes, "--force")
    assert code == 0 and pq.read_metadata(notes).num_rows == 320


def test_sweep_keeps_one_identity_per_folder(tmp_path, capsys):
    sw = [
        "sweep",
        "tuidaohu",
        "--rule",
        "horses=0,4",
        "--policy",
        "random",
        "--out",
        tmp_path / "s",
    ]
    assert run(capsys, *sw, "--deals", "64")[0] == 0
    files = {p.name: p.read_bytes() for p in (tmp_path / "s").iterdir()}
    code, _, err = run(capsys, *sw, "--deals", "128")
    assert code == 2 and one_line(err) and "another sweep" in err and "deals" in err
    assert {p.name: p.read_bytes() for p in (tmp_path / "s").iterdir()} == files
    assert run(capsys, *sw, "--deals", "64")[0] == 0  # the same sweep: reused
    assert {p.name: p.read_bytes() for p in (tmp_path / "s").iterdir()} == files
    assert run(capsys, *sw, "--deals", "128", "--force")[0] == 0
    assert all(pq.read_metadata(p).num_rows == 128 for p in (tmp_path / "s").iterdir())


# --------------------------------------------------------------------- the exit-2 contract
@pytest.mark.parametrize(
    "argv, needle",
    [
        (["score", "fuzhou", "123m", "--win", "1m"], "must hold 17"),
        (["score", "tuidaohu", "123m", "--win", "1m"], "must hold 14"),
        (["simulate", "lishui", "--deals", "5", "--rules", "{tmp}", "--out", "{tmp}/a.parquet"],
         "is a folder"),
        (["simulate", "lishui", "--deals", str(10**12), "--out", "{tmp}/b.parquet"], "--deals"),
        (["simulate", "lishui", "--deals", str(10**10), "--match-length", "1000",
          "--out", "{tmp}/b.parquet"], "DIR/"),
        (["sweep", "tuidaohu", "--rule", "horses=0,4", "--deals", str(10**12),
          "--out", "{tmp}/s"], "--deals"),
        (["report", "--variants", "tuidaohu", "--deals", str(10**12), "--out", "{tmp}/r"],
         "--deals"),
        (["simulate", "lishui", "--deals", "5", "--seed", str(2**70), "--out", "{tmp}/c.parquet"],
         "--seed"),
        (["replay", "lishui", "--seed", "1", "--match", str(10**20)], "--match"),
        (["replay", "lishui", "--seed", str(2**64), "--match", "0"], "--seed"),
        (["summarize", "{rec}", "--plot", "/proc/mjlab"], "--plot"),
        (["sweep", "tuidaohu", "--rule", "horses=0,4", "--deals", "32", "--out", "{tmp}/s",
          "--plot", "/proc/mjlab"], "--plot"),
        (["sweep", "zhuji", "--rule", "caishen_fixed=none,5z", "--deals", "32",
          "--out", "{tmp}/s"], "caishen"),
        (["score", "tuidaohu", "123m456m789m123p22p", "--win", "2p", "--flag", "nosuch"],
         "nosuch"),
        (["score", "lishui", "123m456m789m123p22p", "--win", "2p", "--flowers", "99"], "flowers"),
        (["score", "fuzhou", "123m456m789m123p22p", "--win", "2p", "--flowers", "99"], "0..36"),
        (["score", "zhuji", "123m456m789m123p22p", "--win", "2p", "--streak", str(2**70)],
         "--streak"),
        (["simulate", "lishui", "--deals", "50", "--chunk-matches", "0", "--out", "{tmp}/d/"],
         "--chunk-matches"),
        (["simulate", "lishui", "--deals", "50", "--chunk-matches", "4",
          "--out", "{tmp}/x.parquet"], "DIR/"),
    ],
)  # fmt: skip
def test_bad_input_is_one_line_exit_2_and_writes_nothing(tmp_path, capsys, argv, needle):
    rec_dir = tmp_path / "in"
    rec_dir.mkdir()
    rec = rec_dir / "r.parquet"
    if "{rec}" in argv:
        assert main([*SIM, "--out", str(rec)]) == 0
        capsys.readouterr()
    work = tmp_path / "work"
    work.mkdir()
    argv = [a.replace("{tmp}", str(work)).replace("{rec}", str(rec)) for a in argv]
    code, _, err = run(capsys, *argv)
    assert code == 2 and one_line(err) and needle in err, err
    assert list(work.iterdir()) == []


def test_score_says_what_it_assumes_and_an_illegal_win_says_so(capsys):
    code, out, _ = run(capsys, "score", "zhuji", "123m456m789m123p22p", "--win", "2p")
    assert code == 0 and "assumed: a self-draw" in out
    assert "NOT a legal win" in out and "wins under" not in out
    code, out, _ = run(capsys, "score", "zhuji", "123m456m789m123p22p", "--win", "2p", "--json")
    res = json.loads(out)
    assert res["legal"] is False and res["assumed"] == ["self_draw"]
    code, out, _ = run(capsys, "score", "tuidaohu", "11123455678999m", "--win", "5m", "--self-draw")
    assert code == 0 and "assumed" not in out and "wins under tuidaohu" in out


# --------------------------------------------------------------------- permissions, environment
def test_files_follow_the_umask(tmp_path, capsys):
    old = os.umask(0o022)
    try:
        dataset(tmp_path, capsys)
        assert run(capsys, *SIM, "--out", tmp_path / "one.parquet")[0] == 0
    finally:
        os.umask(old)
    files = [tmp_path / "one.parquet", *(tmp_path / "d").glob("chunk-*.parquet")]
    assert {oct(f.stat().st_mode & 0o777) for f in files} == {"0o644"}
    old = os.umask(0o027)  # the umask decides, not a fixed mode
    try:
        assert run(capsys, *SIM, "--out", tmp_path / "two.parquet")[0] == 0
    finally:
        os.umask(old)
    assert oct((tmp_path / "two.parquet").stat().st_mode & 0o777) == "0o640"


def test_a_full_disk_is_one_line_exit_1_and_leaves_no_partial_file(tmp_path, capsys, monkeypatch):
    import engine.fileio as fio

    real = os.fdopen

    def full(fd, *a, **k):
        f = real(fd, *a, **k)

        class Full:
            def __getattr__(self, name):
                return getattr(f, name)

            def __enter__(self):
                return self

            def __exit__(self, *exc):
                f.close()

            def write(self, b):
                raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

        return Full()

    monkeypatch.setattr(fio.os, "fdopen", full)
    out = tmp_path / "x.parquet"
    code, _, err = run(capsys, *SIM, "--out", out)
    assert code == 1 and one_line(err) and "No space left on device" in err and str(out) in err
    assert "internal error" not in err
    assert list(tmp_path.iterdir()) == []
    code, _, err = run(capsys, *SIM, "--chunk-matches", "4", "--out", f"{tmp_path / 'd'}/")
    assert code == 1 and one_line(err) and "No space left" in err
    assert not (tmp_path / "d").exists()
    monkeypatch.setenv("MJLAB_DEBUG", "1")
    code, _, err = run(capsys, *SIM, "--out", out)
    assert code == 1 and "Traceback" in err


def _mount(target, *opts):
    target.mkdir()
    ok = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", ",".join(opts), "tmpfs", str(target)],
        capture_output=True,
    )
    return ok.returncode == 0


def test_a_real_small_disk_and_a_read_only_folder(tmp_path, capsys):
    small, ro = tmp_path / "small", tmp_path / "ro"
    if os.geteuid() != 0 or not _mount(small, "size=12k"):
        pytest.skip("cannot mount a tmpfs here")
    try:
        code, _, err = run(capsys, *SIM, "--out", small / "x.parquet")
        assert code == 1 and one_line(err) and "No space left on device" in err
        assert list(small.iterdir()) == []
        assert _mount(ro, "size=64k", "ro")
        for argv in ([*SIM, "--out", ro / "x.parquet"], [*SIM, "--out", f"{ro}/d/"]):
            code, _, err = run(capsys, *argv)  # the environment's fault: exit 1 (issue 46)
            assert code == 1 and one_line(err) and "Read-only file system" in err
    finally:
        for m in (ro, small):
            subprocess.run(["umount", str(m)], capture_output=True)


KILL_AT_RENAME = textwrap.dedent(
    """
    import os, signal, sys
    real = os.replace
    count = [0]
    def replace(src, dst):
        count[0] += 1
        if count[0] == 3:  # the third chunk: written and fsynced, not yet renamed
            os.kill(os.getpid(), signal.SIGKILL)
        real(src, dst)
    os.replace = replace
    from mjlab.cli import main
    sys.exit(main(sys.argv[1:]))
    """
)


def test_kill_9_between_write_and_rename_resumes_to_the_same_bytes(tmp_path, capsys):
    folder = tmp_path / "k"
    argv = [*SIM, "--chunk-matches", "4", "--out", f"{folder}/"]
    proc = subprocess.run([sys.executable, "-c", KILL_AT_RENAME, *argv], capture_output=True)
    assert proc.returncode == -signal.SIGKILL
    assert len(list(folder.glob("chunk-*.parquet"))) == 2
    assert [p for p in folder.iterdir() if p.name.endswith(".tmp")]  # the unrenamed chunk
    code, _, err = run(capsys, *argv)
    assert code == 0 and "taking over the stale lock" in err
    clean = dataset(tmp_path, capsys, "clean")
    assert sorted(p.name for p in folder.iterdir()) == sorted(p.name for p in clean.iterdir())
    for p in clean.iterdir():
        assert (folder / p.name).read_bytes() == p.read_bytes()
