"""Issue 46: nothing lost, nothing stuck, no door (resume, locks, paths, hostile files, Dask).

Each test here is one bullet of the issue's "Why", or one fault of an item of its "What to
build"; each fails on the code before the issue. The byte-flip fault test of a chunk is in
``tests/engine/runs/test_dataset.py``; the fuzz classes in ``tests/mjlab/test_cli_fuzz.py``.
"""

import json
import os
import socket
import stat
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from mjlab.cli import main

SIM = ["simulate", "tuidaohu", "--deals", "64", "--policy", "random", "--quiet"]
DEAD = 2**22 + 12345
"""A pid above Linux's largest (``pid_max`` is at most 2**22): no process has it."""


def run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def one_line(err: str) -> bool:
    return err.count("\n") == 1 and "Traceback" not in err


def dataset(tmp_path, capsys, name="d", *extra):
    folder = tmp_path / name
    code, _, err = run(capsys, *SIM, "--chunk-matches", "1", "--out", f"{folder}/", *extra)
    assert code == 0, err
    return folder


def _mount(target: Path, *opts) -> bool:
    """A tmpfs at ``target`` (root only): a small disk, or a read-only one."""
    target.mkdir()
    if os.geteuid() != 0:
        return False
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", ",".join(opts), "tmpfs", str(target)],
        capture_output=True,
    )
    return done.returncode == 0


def _umount(*targets: Path) -> None:
    for t in targets:
        subprocess.run(["umount", "-l", str(t)], capture_output=True)  # -l: even if busy


def _fill(folder: Path) -> Path:
    """Fill a small file system to the last byte; returns the filler file."""
    filler = folder / "filler"
    fd = os.open(filler, os.O_WRONLY | os.O_CREAT, 0o644)
    try:
        for size in (1 << 16, 4096, 1):
            try:
                while os.write(fd, b"\0" * size):
                    pass
            except OSError:
                pass
    finally:
        os.close(fd)
    return filler


# --------------------------------------------------------------------- a damaged chunk survives
def test_the_issue_reproduction_a_damaged_chunk_is_replayed(tmp_path, capsys):
    """40 bytes flipped in the middle of the second chunk (the footer, outside the data)."""
    folder = tmp_path / "ds"
    argv = [*SIM, "--seed", "3", "--chunk-matches", "1", "--out", f"{folder}/"]
    assert run(capsys, *argv)[0] == 0
    clean = run(capsys, "summarize", folder, "--json")[1]
    victim = sorted(folder.glob("chunk-*.parquet"))[1]
    good = victim.read_bytes()
    data = bytearray(good)
    for i in range(len(data) // 2, len(data) // 2 + 40):
        data[i] ^= 0xFF
    victim.write_bytes(bytes(data))
    code, _, err = run(capsys, "summarize", folder)
    assert code == 2 and one_line(err) and victim.name in err and "damaged" in err
    code, _, err = run(capsys, *argv)
    assert code == 0 and victim.name in err and "playing it again" in err
    assert victim.read_bytes() == good
    assert run(capsys, "summarize", folder, "--json")[1] == clean


# --------------------------------------------------------------------- locks that cannot strand
def test_a_full_disk_at_start_leaves_no_lock(tmp_path, capsys):
    small = tmp_path / "small"
    if not _mount(small, "size=1m"):
        pytest.skip("cannot mount a tmpfs here")
    try:
        filler = _fill(small)
        for out, lock in ((f"{small}/d/", small / "d" / ".mjlab.lock"),
                          (small / "x.parquet", small / ".x.parquet.lock")):  # fmt: skip
            code, _, err = run(capsys, *SIM, "--out", out)
            assert code == 1 and one_line(err) and "No space left on device" in err, err
            assert str(lock) in err  # the first line names the path
            assert sorted(p.name for p in small.iterdir()) == ["filler"]
        filler.unlink()
        code, _, err = run(capsys, *SIM, "--chunk-matches", "1", "--out", f"{small}/d/")
        assert code == 0, err
    finally:
        _umount(small)


def test_a_lock_that_cannot_be_written_is_not_left_behind(tmp_path, capsys, monkeypatch):
    import errno

    import engine.fileio as fio

    real = os.write

    def full(fd, data):
        if b'"pid"' in bytes(data):  # the lock's content
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return real(fd, data)

    monkeypatch.setattr(fio.os, "write", full)
    folder = tmp_path / "d"
    code, _, err = run(capsys, *SIM, "--out", f"{folder}/")
    assert code == 1 and one_line(err) and "No space left" in err
    assert str(folder / ".mjlab.lock") in err and not folder.exists()
    monkeypatch.undo()
    assert run(capsys, *SIM, "--chunk-matches", "1", "--out", f"{folder}/")[0] == 0


@pytest.mark.parametrize("content", [b"", b"\0\xff{", b'{"pid": 1', b"[]"])
def test_an_empty_or_unreadable_lock_whose_writer_is_gone_is_taken_over(tmp_path, capsys, content):
    folder = dataset(tmp_path, capsys)
    lock = folder / ".mjlab.lock"
    lock.write_bytes(content)
    code, _, err = run(capsys, *SIM, "--chunk-matches", "1", "--out", f"{folder}/")
    assert code == 0 and one_line(err) and "taking over" in err and str(lock) in err, err
    assert not lock.exists()
    one = tmp_path / "one.parquet"
    (tmp_path / ".one.parquet.lock").write_bytes(content)
    code, _, err = run(capsys, *SIM, "--out", one)
    assert code == 0 and "taking over" in err and ".one.parquet.lock" in err
    assert not (tmp_path / ".one.parquet.lock").exists()


def test_a_lock_symlink_is_never_followed(tmp_path, capsys):
    """A planted symlink to a JSON naming this host: refused, its target untouched."""
    target = tmp_path / "precious.json"
    text = json.dumps({"host": socket.gethostname(), "pid": DEAD, "run": "mine"})
    target.write_text(text)
    folder = tmp_path / "d"
    folder.mkdir()
    (folder / ".mjlab.lock").symlink_to(target)
    (tmp_path / ".x.parquet.lock").symlink_to(target)
    (tmp_path / ".gone.parquet.lock").symlink_to(tmp_path / "nowhere.json")
    for out, lock in ((f"{folder}/", folder / ".mjlab.lock"),
                      (tmp_path / "x.parquet", tmp_path / ".x.parquet.lock"),
                      (tmp_path / "gone.parquet", tmp_path / ".gone.parquet.lock")):  # fmt: skip
        code, _, err = run(capsys, *SIM, "--out", out)
        assert code == 2 and one_line(err) and str(lock) in err and "symbolic link" in err, err
        assert lock.is_symlink()
    assert target.read_text() == text
    assert not (tmp_path / "nowhere.json").exists()
    assert sorted(p.name for p in folder.iterdir()) == [".mjlab.lock"]


def test_a_live_holders_lock_is_refused_naming_the_path(tmp_path, capsys):
    folder = tmp_path / "d"
    folder.mkdir()
    hold = textwrap.dedent(
        """
        import sys, time
        from engine.fileio import OutputLock
        OutputLock(sys.argv[1], "mine").acquire()
        print("held", flush=True)
        time.sleep(60)
        """
    )
    holder = subprocess.Popen([sys.executable, "-c", hold, str(folder)], stdout=subprocess.PIPE)
    try:
        assert holder.stdout.readline().strip() == b"held"
        lock = folder / ".mjlab.lock"
        assert json.loads(lock.read_text())["pid"] == holder.pid  # written whole at once
        code, _, err = run(capsys, *SIM, "--out", f"{folder}/")
        assert code == 2 and one_line(err) and str(lock) in err and f"pid {holder.pid}" in err
    finally:
        holder.kill()
        holder.wait()
        holder.stdout.close()


# --------------------------------------------------------------------- paths checked first
OUTS = {
    "simulate-file": [*SIM, "--out", "{out}.parquet"],
    "simulate-folder": [*SIM, "--out", "{out}/"],
    "sweep": ["sweep", "tuidaohu", "--rule", "horses=0,4", "--deals", "32", "--policy", "random",
              "--quiet", "--out", "{out}"],
    "sweep-plot": ["sweep", "tuidaohu", "--rule", "horses=0,4", "--deals", "32", "--policy",
                   "random", "--quiet", "--out", "{work}/s", "--plot", "{out}"],
    "summarize-plot": ["summarize", "{rec}", "--plot", "{out}"],
    "report": ["report", "--variants", "tuidaohu", "--deals", "32", "--quiet", "--out", "{out}"],
    "rules": ["rules", "tuidaohu", "--quiet", "--out", "{out}"],
    "rescore": ["rescore", "{rec}", "--rule", "pay_base=2", "--out", "{out}.parquet"],
    "design-plot": ["design", "tuidaohu", "--vary", "horses=0,2", "--target", "dealer_edge<=1",
                    "--deals", "32", "--policy", "random", "--quiet", "--plot", "{out}.png"],
}  # fmt: skip
"""One command line per output option; ``{out}`` is the path under test."""

FILE_KINDS = ("simulate-file", "rescore", "design-plot")


@pytest.fixture(scope="module")
def rec(tmp_path_factory):
    path = tmp_path_factory.mktemp("rec") / "r.parquet"
    assert main([*SIM, "--out", str(path)]) == 0
    return path


def _argv(kind: str, out: str, work: Path, rec: Path) -> list[str]:
    argv = []
    for a in OUTS[kind]:
        if "{out}" in a and (not out.strip() or out.strip("/") in ("", "tmp/..")):
            a = "{out}"  # the bare value, not a name made from it
        argv.append(a.replace("{out}", out).replace("{work}", str(work)).replace("{rec}", str(rec)))
    return argv


@pytest.mark.parametrize("kind", sorted(OUTS))
@pytest.mark.parametrize("value", ["", " ", "{missing}/x", "{long}", "{longname}"])
def test_bad_output_paths_are_refused_before_anything_is_written(
    tmp_path, capsys, monkeypatch, rec, kind, value
):
    if value == "{longname}" and kind not in FILE_KINDS:
        pytest.skip("a folder's name needs no room for temporary names beside it")
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    out = (
        value.replace("{missing}", str(work / "missing"))
        .replace("{longname}", str(work / ("n" * 240)))
        .replace("{long}", str(work / ("a" * 300) / "x"))
    )
    code, _, err = run(capsys, *_argv(kind, out, work, rec))
    assert code == 2 and one_line(err), (kind, value, err)
    if value.strip():
        assert ("does not exist" in err or "bytes long" in err) and str(work)[:20] in err, err
    else:
        assert "is empty" in err, err
    assert list(work.iterdir()) == []


@pytest.mark.parametrize("kind", ["simulate-folder", "sweep", "report", "rules", "summarize-plot"])
def test_the_root_folder_is_refused(tmp_path, capsys, rec, kind):
    """``--out "$UNSET/"`` is ``/``: refused, so nothing is written into the root folder."""
    before = sorted(os.listdir("/"))
    for root in ("/", "//", "/tmp/.."):
        argv = _argv(kind, root, tmp_path, rec)
        code, _, err = run(capsys, *argv)
        assert code == 2 and one_line(err) and "root folder" in err, (argv, err)
    assert sorted(os.listdir("/")) == before


@pytest.mark.parametrize("kind", ["simulate-file", "rescore", "design-plot"])
def test_a_fifo_or_a_device_is_never_an_output(tmp_path, capsys, rec, kind):
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    targets = [fifo]
    if os.geteuid() == 0:  # a copy of /dev/null in the test's folder
        null = tmp_path / "null"
        os.mknod(null, stat.S_IFCHR | 0o666, os.makedev(1, 3))
        targets.append(null)
    for target in targets:
        suffix = ".png" if kind == "design-plot" else ".parquet"
        link = tmp_path / f"out{suffix}"
        link.symlink_to(target)
        argv = _argv(kind, str(tmp_path / "out"), tmp_path, rec)
        code, _, err = run(capsys, *argv, *(["--force"] if kind != "design-plot" else []))
        assert code == 2 and one_line(err) and "not a regular file" in err, err
        assert not stat.S_ISREG(os.stat(target).st_mode) and link.is_symlink()
        link.unlink()


def test_read_only_and_full_disks_are_environment_faults(tmp_path, capsys, rec):
    """Exit 1 naming the path, for every output option; and no partial report."""
    ro, small = tmp_path / "ro", tmp_path / "small"
    if not _mount(ro, "size=64k", "ro"):
        pytest.skip("cannot mount a tmpfs here")
    try:
        for kind in sorted(OUTS):
            code, _, err = run(capsys, *_argv(kind, str(ro / "o"), tmp_path, rec))
            assert code == 1 and one_line(err) and str(ro) in err, (kind, err)
            assert "Read-only file system" in err, err
        assert _mount(small, "size=1m")
        code, _, err = run(capsys, *_argv("report", str(small / "r"), tmp_path, rec))
        assert code == 1 and one_line(err) and "No space left on device" in err, err
        assert list(small.iterdir()) == []  # the figures and rules pages written first: gone
        code, _, err = run(capsys, *_argv("rules", str(small / "r"), tmp_path, rec))
        assert code == 0, err
        _fill(small)
        code, _, err = run(capsys, "rules", "--quiet", "--out", small / "r2", "--format", "md")
        assert code == 1 and one_line(err) and not (small / "r2").exists(), err
    finally:
        _umount(ro, small)


@pytest.mark.parametrize("command", ["summarize", "rescore"])
def test_bad_input_paths_are_refused(tmp_path, capsys, command, monkeypatch):
    """An input PATH that is empty ("" read the current folder), too long (exit 1), a FIFO
    or a device (exit 1, "Not a directory")."""
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    monkeypatch.chdir(tmp_path)
    tail = ["--rule", "pay_base=2", "--out", tmp_path / "o.parquet"] if command == "rescore" else []
    for path, needle in (("", "is empty"), (" ", "is empty"), ("/dev/zero", "character device"),
                         (fifo, "FIFO"), (tmp_path / ("a" * 300), "too long")):  # fmt: skip
        code, _, err = run(capsys, command, path, *tail)
        assert code == 2 and one_line(err) and needle in err, (path, err)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["fifo"]


# --------------------------------------------------------------------- hostile files, exit 2
LUODISAO = "x1x2x3 x4x5x6 d1d2d3 x7x8x9 x10x10x10"
DEEP = "a = " + "[" * 5000 + "]" * 5000


@pytest.mark.parametrize(
    "text, needle",
    [
        (DEEP, "nested too deeply"),
        ("horses = {a = 1}", "is a table"),
        ("[rules]\nhorses = [1, 2]", "is an array"),
        ("horses = 1979-05-27", "a date or time"),
        ("# a comment\n" * 90_000, "at most 1,048,576"),
        ('horses = "\\ud800"', "not valid TOML"),
        ("\xff\xfe", "not valid TOML"),
    ],
)
def test_a_hostile_rules_file_is_one_line_exit_2(tmp_path, capsys, text, needle):
    bad = tmp_path / "bad.toml"
    bad.write_bytes(text.encode("utf-8", "surrogateescape") if "\xff" not in text else b"\xff\xfe")
    work = tmp_path / "work"
    work.mkdir()
    for argv in ([*SIM, "--rules", bad, "--out", work / "x.parquet"],
                 ["score", "tuidaohu", "11123455678999m", "--win", "5m", "--rules", bad],
                 ["sweep", "tuidaohu", "--rule", "horses=0,4", "--deals", "32", "--rules", bad,
                  "--out", work / "s"]):  # fmt: skip
        code, _, err = run(capsys, *argv)
        assert code == 2 and one_line(err) and "bad.toml" in err and needle in err, err
    assert list(work.iterdir()) == []


V = {"variant": "tuidaohu", "policy": "value", "version": 2}


@pytest.mark.parametrize(
    "doc, needle",
    [
        ({"bot": "x", "params": {}}, "'bot' is not an object"),
        ({"bot": V, "params": [1, 2]}, "'params' is not an object"),
        ({"bot": V, "params": {"flush": "abc"}}, "params.flush"),
        ({"bot": V, "params": {"flush": {"a": 1}}}, "params.flush"),
        ({"bot": V, "params": {"flush": [[1.0]]}}, "params.flush"),
        ({"bot": V, "params": {"flush": True}}, "params.flush"),
        ({"bot": V, "params": {}, "model": []}, "'model' is not an object"),
        ({"bot": {**V, "version": "2"}, "params": {}}, "version"),
        ({"bot": {"policy": "value"}, "params": {}}, "no variant"),
        ("[" * 100_000 + "]" * 100_000, "nested too deeply"),
        ({"bot": V, "params": {}, "tune": [[[[[[[[[[[[[[1]]]]]]]]]]]]]]}, "levels deep"),
        ('{"bot": ' + json.dumps(V) + ', "params": {"flush": 1e999}}', "params.flush"),
        ("not json", "not readable JSON"),
        ("[1, 2]", "not an mjlab bot parameter file"),
    ],
)
def test_a_hostile_bot_parameter_file_is_one_line_exit_2(tmp_path, capsys, doc, needle):
    bad = tmp_path / "bad.json"
    bad.write_text(doc if isinstance(doc, str) else json.dumps(doc))
    for argv in ([*SIM, "--policy", "value", "--bot-params", bad, "--out", tmp_path / "x.parquet"],
                 ["ladder", "tuidaohu", "--deals", "64", "--bot-params", bad]):  # fmt: skip
        code, _, err = run(capsys, *argv)
        assert code == 2 and one_line(err) and "bad.json" in err and needle in err, err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.json"]


def _cli(*argv, env=None, limit_memory=False, timeout=300):
    """The command line in a process of its own (the timeout only guards against a hang)."""

    def small():
        import resource

        resource.setrlimit(resource.RLIMIT_AS, (4 << 30, 4 << 30))

    return subprocess.run(
        [sys.executable, "-m", "mjlab.cli", *map(str, argv)],
        capture_output=True,
        text=True,
        timeout=timeout,
        env={**os.environ, **(env or {})},
        preexec_fn=small if limit_memory else None,
    )


def test_a_fifo_or_a_device_is_never_read_as_an_input_file(tmp_path):
    """``--rules`` on a FIFO hung, and on /dev/zero read until memory ran out."""
    fifo = tmp_path / "rules.fifo"
    os.mkfifo(fifo)
    out = tmp_path / "x.parquet"
    for flag, path in (("--rules", fifo), ("--bot-params", fifo), ("--rules", "/dev/zero")):
        done = _cli(*SIM, flag, path, "--out", out, limit_memory=True)
        assert done.returncode == 2 and one_line(done.stderr), done.stderr
        assert str(path) in done.stderr and "not a regular file" in done.stderr
    assert not out.exists()


def test_a_bad_scheduler_address_is_one_line_exit_2(tmp_path, capsys):
    for address in ("foo bar", "", "tls://host", "tcp://host:99999", "http://host:80"):
        argv = [*SIM, "--backend", "dask", "--scheduler", address, "--out", f"{tmp_path}/d/"]
        code, _, err = run(capsys, *argv)
        assert code == 2 and one_line(err) and "--scheduler" in err, (address, err)
    code, _, err = run(capsys, *SIM, "--scheduler", "tls://h:1", "--out", tmp_path / "x.parquet")
    assert code == 2 and one_line(err) and "--backend dask" in err
    assert list(tmp_path.iterdir()) == []


def test_an_ascii_only_stdout_gets_no_traceback(tmp_path):
    for argv in (["variants"], ["rules", "lishui"], ["score", "tuidaohu", "11123455678999m",
                 "--win", "5m", "--self-draw"], ["nosuch-command"]):  # fmt: skip
        done = _cli(*argv, env={"PYTHONIOENCODING": "ascii"})
        assert "Traceback" not in done.stderr and done.returncode in (0, 2), done.stderr
        assert done.stdout.isascii() and done.stderr.isascii()
        if done.returncode == 0:
            assert "\\u" in done.stdout  # the 汉字, escaped rather than lost


# --------------------------------------------------------------------- inputs wrongly accepted
@pytest.mark.parametrize(
    "argv, needle",
    [
        (["fit", "tuidaohu", "--workers", "0", "--deals", "64", "--dry-run", "--quiet"],
         "--workers"),
        (["ladder", "tuidaohu", "--policies", "", "--deals", "64"], "policy ''"),
        (["ladder", "tuidaohu", "--policies", "random,,value", "--deals", "64"], "policy ''"),
        (["score", "luodisao", LUODISAO, "--win", "x1", "--xing-card", "99"], "--xing-card"),
        (["score", "luodisao", LUODISAO, "--win", "x1", "--xing-card", ""], "--xing-card"),
        (["exact", "--hand", "14", "--wild", ""], "--wild is empty"),
        (["exact", ""], "unknown variant ''"),
        (["rescore", "{rec}", "--rule", "pay_base=2", "--out", "{w}/o.parquet", "--gap",
          "--gap-deals", "0"], "--gap-deals"),
        (["design", "tuidaohu", "--vary", "horses=0,2", "--target", "dealer_edge<=1", "--deals",
          "32", "--skill-deals", "-4"], "--skill-deals"),
        (["design", "tuidaohu", "--vary", "horses=0,0", "--target", "dealer_edge<=1", "--deals",
          "32"], "given twice"),
        (["design", "tuidaohu", "--vary", "horses=0,2", "--target", "dealer_edge<=1", "--deals",
          "32", "--plot", ""], "--plot is empty"),
        (["summarize", "{rec}", "--loss", "20,20"], "given twice"),
        (["summarize", "{rec}", "--plot", ""], "--plot is empty"),
        (["sweep", "tuidaohu", "--rule", "horses=0,4", "--deals", "32", "--out", "{w}/s",
          "--plot", ""], "--plot is empty"),
        ([*SIM, "--rules", "", "--out", "{w}/x.parquet"], "--rules is empty"),
        ([*SIM, "--bot-params", "", "--out", "{w}/x.parquet"], "--bot-params is empty"),
        ([*SIM, "--scheduler", "tcp://127.0.0.1:1", "--out", "{w}/x.parquet"],
         "--scheduler goes with --backend dask"),
        ([*SIM, "--backend", "dask", "--scheduler", "tls://127.0.0.1:1", "--tls-ca-file", "",
          "--out", "{w}/d/"], "--tls-ca-file is empty"),
    ],
)  # fmt: skip
def test_inputs_once_accepted_are_refused(tmp_path, capsys, rec, argv, needle):
    work = tmp_path / "work"
    work.mkdir()
    argv = [str(a).replace("{w}", str(work)).replace("{rec}", str(rec)) for a in argv]
    code, _, err = run(capsys, *argv)
    assert code == 2 and one_line(err) and needle in err, err
    assert list(work.iterdir()) == []
