"""Hypothesis drives every ``mjlab`` command with malformed and out-of-range arguments.

The contract (mjlab.cli): exit 0, or exit 2 with one stderr line and no traceback and
nothing left behind; on a disk that cannot be written, exit 1 with one line naming the
path and nothing left behind. The classes (issue 46): malformed values; bad paths
(empty, over-long names and paths, missing parents, a FIFO, a device, folders where files
go); hostile files (deeply nested or oversized TOML and JSON, files of the wrong shape, a
FIFO and ``/dev/zero`` as inputs); and the environment (a read-only and a full disk).
Run with ``--hypothesis-show-statistics`` to see the outcome of each class of input
(``event`` labels).
"""

import json
import os
import shutil
import stat
import subprocess
import tempfile
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from engine import fileio
from mjlab.cli import _COMMANDS, _build_parser, main

INTS = ["0", "-1", "1", "3", "32", str(2**31), str(2**63), str(2**64), str(2**70), "1e12",
        "nan", "", "x", "٣", " 7", "-0", "99"]  # fmt: skip
WORDS = ["", "nosuch", "value", "random", "a,b,c,d", "value,value", "tuidaohu", "lishui",
         "ghost=fan", "horses=0,4", "horses", "=", "x=1", "caishen=9", "caishen_fixed=5z",
         "pong:5z", "chow:124m", "kong", "tianhu", "qiangjin", "flip", "5z", "1m", "x1",
         "tcp://127.0.0.1:1", "hand", "simulate", "standard", "thirteen_orphans", "f1",
         "foo bar", "tls://h", " "]  # fmt: skip
HANDS = ["123m456m789m123p22p", "11123455678999m", "123m", "x1x2x3 x4x5x6 d1d2d3 x7x8x9 x10x10x10",
         "zz", "1" * 40 + "m", "123m456p789s1122z", "ww", "😀"]  # fmt: skip
EXPENSIVE = {"bench", "report", "exact", "warmup", "fit", "tune", "ladder"}
"""Commands whose valid run takes seconds to minutes (fit and tune also write the committed
bot files): each example gets a bad value too."""
BAD = ["--deals", "-1"], ["--nosuch"], ["--seed", str(2**70)], ["--only", "x"], ["--tiles", "7"]
EXAMPLES = max(20, settings().max_examples * 2 // 3)
"""Examples per test: 40 in the default ``fast`` profile, 1333 with HYPOTHESIS_PROFILE=thorough."""


def _options():
    parser = _build_parser()
    sub = next(a for a in parser._actions if a.dest == "command")
    out = {}
    for name, p in sub.choices.items():
        opts, positional = [], []
        for a in p._actions:
            if a.option_strings:
                if "-h" in a.option_strings:
                    continue
                opts.append((a.option_strings[-1], a.nargs == 0))
            else:
                positional.append(a.dest)
        out[name] = (opts, positional)
    return out


OPTIONS = _options()


PATHS = ["{w}/o.parquet", "{w}/d/", "{w}/s", "/proc/mjlab", "{w}", "{rec}", "", " ",
         "{w}/missing/x.parquet", "{w}/missing/d/", "{w}/" + "a" * 300 + "/x",
         "{w}/" + "n" * 250, "{w}/" + "n" * 240 + ".parquet", "{h}/fifo", "{h}/null",
         "{h}/fifo.png", "{w}/o.png"]  # fmt: skip
"""Output paths, good and bad (the root folder is tested in tests/test_faults.py, where a
regression could not write into it unseen)."""

HOSTILE = ["{h}/deep.toml", "{h}/table.toml", "{h}/big.toml", "{h}/bad.json", "{h}/deep.json",
           "{h}/shape.json", "{h}/fifo", "{h}/null", "/dev/zero", "{h}/missing.toml", "",
           "{h}"]  # fmt: skip
"""Input files (``--rules``, ``--bot-params``, the TLS files) that must be refused."""


def _value(flag: str):
    if flag in ("--out", "--plot"):
        return st.sampled_from(PATHS)
    if flag in ("--rules", "--bot-params", "--tls-ca-file", "--tls-cert", "--tls-key"):
        return st.sampled_from([*HOSTILE, "{w}/o.parquet", "{rec}"])
    if flag in ("--hand", "--sets", "--deals", "--seed", "--match", "--deal", "--workers",
                "--streak", "--flowers", "--seat", "--dealer", "--from", "--match-length",
                "--chunk-matches", "--tiles", "--wild-copies"):  # fmt: skip
        return st.sampled_from(INTS)
    return st.sampled_from(WORDS + HANDS)


def _huge(value: str) -> bool:
    """A deal count a test cannot play (more than 100,000)."""
    try:
        return int(value) > 100_000
    except ValueError:
        return False


def _to_folder(argv) -> bool:
    """Whether the last ``--out`` of ``argv`` names a folder (a chunked dataset)."""
    outs = [argv[i + 1] for i, a in enumerate(argv[:-1]) if a == "--out"]
    return bool(outs) and not outs[-1].endswith(".parquet") and outs[-1] != "{rec}"


def test_the_fuzzer_never_plays_a_huge_run_into_a_folder():
    assert _huge(str(2**31)) and not _huge("99") and not _huge("x")
    assert _to_folder(["simulate", "--out", "{w}"]) and _to_folder(["--out", "{w}/d/"])
    assert not _to_folder(["--out", "{w}", "--out", "{w}/o.parquet"])

    @given(argv_for("simulate"))
    @settings(max_examples=200, deadline=None, suppress_health_check=list(HealthCheck))
    def check(argv):
        deals = [argv[i + 1] for i, a in enumerate(argv[:-1]) if a == "--deals"]
        if _to_folder(argv):
            assert deals and not _huge(deals[-1]), argv

    check()


@st.composite
def argv_for(draw, command):
    opts, positional = OPTIONS[command]
    argv = [command]
    for dest in positional:
        pool = {"variant": ["tuidaohu", "lishui", "zhuji", "fuzhou", "luodisao", "nosuch", ""],
                "hand": HANDS, "path": ["{rec}", "{w}", "{w}/missing", "/proc/mjlab"]}  # fmt: skip
        if draw(st.booleans()) or dest != "variant" or command != "exact":
            argv.append(draw(st.sampled_from(pool.get(dest, WORDS))))
    for flag, is_switch in draw(st.lists(st.sampled_from(opts), max_size=5)):
        argv.append(flag)
        if not is_switch:
            argv.append(draw(_value(flag)))
    if command == "simulate" and "--deals" not in argv:
        argv += ["--deals", draw(st.sampled_from(INTS))]
    if command == "simulate" and _to_folder(argv):
        # a chunked dataset streams, so a valid 2**31-deal run there is not refused: it
        # would play for days (a file target gets the memory check's exit 2 instead)
        argv += ["--deals", draw(st.sampled_from([d for d in INTS if not _huge(d)]))]
    if command in EXPENSIVE:
        argv += list(draw(st.sampled_from(BAD)))
    return argv


@pytest.fixture(scope="module")
def rec(tmp_path_factory):
    path = tmp_path_factory.mktemp("fuzz") / "r.parquet"
    assert main(["simulate", "tuidaohu", "--deals", "64", "--out", str(path), "--quiet"]) == 0
    return path


@pytest.fixture(scope="module")
def hostile(tmp_path_factory) -> Path:
    """A folder of hostile input files, a FIFO and (as root) a copy of /dev/null."""
    h = tmp_path_factory.mktemp("hostile")
    (h / "deep.toml").write_text("a = " + "[" * 5000 + "]" * 5000)
    (h / "table.toml").write_text("horses = {a = 1}\n")
    (h / "big.toml").write_text("# a comment\n" * 100_000)
    (h / "bad.json").write_text('{"bot": "x", "params": {}}')
    (h / "deep.json").write_text("[" * 100_000 + "]" * 100_000)
    bot = {"variant": "tuidaohu", "policy": "value", "version": 2}
    (h / "shape.json").write_text(json.dumps({"bot": bot, "params": {"flush": {"a": 1}}}))
    os.mkfifo(h / "fifo")
    os.mkfifo(h / "fifo.png")
    if os.geteuid() == 0:
        os.mknod(h / "null", stat.S_IFCHR | 0o666, os.makedev(1, 3))
    else:
        os.mkfifo(h / "null")
    return h


def _class(arg: str) -> str | None:
    """The class of a bad value, for the statistics (None for the others)."""
    if arg.startswith("{h}") or arg == "/dev/zero":
        return "hostile file"
    if arg in ("", " ") or "missing" in arg or "a" * 300 in arg:
        return "bad path"
    if arg.endswith("n" * 240 + ".parquet"):  # no room for the temporary and lock names
        return "bad path"
    return None


@pytest.mark.parametrize("command", sorted(_COMMANDS))
@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_every_command_keeps_the_contract(command, rec, hostile, data, capsys):
    work = Path(tempfile.mkdtemp(prefix="mjlab-fuzz-"))
    try:
        drawn = data.draw(argv_for(command), label="argv")
        argv = [a.replace("{w}", str(work)).replace("{rec}", str(rec)).replace("{h}", str(hostile))
                for a in drawn]  # fmt: skip
        if command == "simulate":
            argv.append("--quiet")
        code = main(argv)
        out, err = capsys.readouterr()
        event(f"{command}: exit {code}")
        for kind in sorted({k for k in map(_class, drawn) if k}):
            event(f"{kind}: exit {code}")
        assert code in (0, 2), (argv, err)
        if code == 2:
            assert err.count("\n") == 1 and err.startswith("mjlab"), (argv, err)
            assert "Traceback" not in err
            assert list(work.iterdir()) == [], (argv, err)
        assert rec.exists()
        for name in ("fifo", "fifo.png", "null"):  # never replaced by a file, never read
            assert not stat.S_ISREG(os.lstat(hostile / name).st_mode)
    finally:
        shutil.rmtree(work, ignore_errors=True)


# --------------------------------------------------------------------- the environment
OUTPUT_RUNS = {
    "simulate": (["simulate", "tuidaohu", "--deals", "32", "--policy", "random", "--quiet"],
                 "--out", ["o.parquet", "d/"]),
    "sweep": (["sweep", "tuidaohu", "--rule", "horses=0,4", "--deals", "32", "--policy",
               "random", "--quiet"], "--out", ["s"]),
    "sweep --plot": (["sweep", "tuidaohu", "--rule", "horses=0,4", "--deals", "32", "--policy",
                      "random", "--quiet", "--out", "{w}/s"], "--plot", ["p"]),
    "summarize --plot": (["summarize", "{rec}"], "--plot", ["p"]),
    "rules": (["rules", "tuidaohu", "--quiet"], "--out", ["r"]),
    "rescore": (["rescore", "{rec}", "--rule", "pay_base=2"], "--out", ["o.parquet"]),
    "design --plot": (["design", "tuidaohu", "--vary", "pay_base=1,2", "--target",
                       "dealer_edge<=1", "--deals", "32", "--policy", "random", "--quiet"],
                      "--plot", ["p.png"]),
    "report": (["report", "--variants", "tuidaohu", "--deals", "32", "--quiet"], "--out", ["r"]),
}  # fmt: skip
"""A valid run of each output option: its arguments, the option, and names to write."""


def _mount(target: Path, *opts) -> bool:
    target.mkdir()
    if os.geteuid() != 0:
        return False
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", ",".join(opts), "tmpfs", str(target)],
                          capture_output=True)  # fmt: skip
    return done.returncode == 0


@pytest.fixture(scope="module")
def disks(tmp_path_factory):
    """A read-only disk and a full one (tmpfs mounts: root only)."""
    root = tmp_path_factory.mktemp("disks")
    ro, full = root / "read-only", root / "full"
    if not (_mount(ro, "size=64k", "ro") and _mount(full, "size=256k")):
        for m in (ro, full):
            subprocess.run(["umount", "-l", str(m)], capture_output=True)
        pytest.skip("cannot mount a tmpfs here")
    fd = os.open(full / "filler", os.O_WRONLY | os.O_CREAT, 0o644)
    try:
        for size in (1 << 16, 4096, 1):
            try:
                while os.write(fd, b"\0" * size):
                    pass
            except OSError:
                pass
    finally:
        os.close(fd)
    try:
        yield {"read-only": ro, "full": full}
    finally:
        for m in (ro, full):
            subprocess.run(["umount", "-l", str(m)], capture_output=True)


@pytest.mark.parametrize("option", sorted(OUTPUT_RUNS))
@settings(max_examples=6, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_a_disk_that_cannot_be_written_is_exit_1(option, rec, disks, data, capsys):
    """Issue 46: a read-only folder is the environment's fault (exit 1), as a full disk is;
    one line naming the path, and nothing left on the disk (no partial report)."""
    base, flag, names = OUTPUT_RUNS[option]
    kinds = ["read-only"] if option == "report" else sorted(disks)  # full: tests/test_faults.py
    kind = data.draw(st.sampled_from(kinds), label="disk")
    disk = disks[kind]
    name = data.draw(st.sampled_from(names), label="name")
    work = Path(tempfile.mkdtemp(prefix="mjlab-disk-"))
    try:
        before = sorted(p.name for p in disk.iterdir())
        argv = [a.replace("{rec}", str(rec)).replace("{w}", str(work)) for a in base]
        code = main([*argv, flag, f"{disk / name}{'/' if name.endswith('/') else ''}"])
        out, err = capsys.readouterr()
        event(f"environment ({kind} disk): exit {code}")
        assert code == 1 and err.count("\n") == 1 and err.startswith("mjlab"), (option, err)
        assert str(disk) in err and "Traceback" not in err and "internal error" not in err
        assert sorted(p.name for p in disk.iterdir()) == before
    finally:
        shutil.rmtree(work, ignore_errors=True)


# --------------------------------------------------------------------- files that claim too much
JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.sampled_from([0, 1, -1, 2**31, 2**62, 10**12])
    | st.floats(allow_nan=False)
    | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3)
    ),
    max_leaves=6,
)  # fmt: skip


@pytest.fixture(scope="module")
def datasets(tmp_path_factory):
    root = tmp_path_factory.mktemp("claims")
    out = {}
    for kind, extra in (("records", []), ("summary", ["--summary-only"])):
        folder = root / kind
        argv = ["simulate", "tuidaohu", "--deals", "320", "--policy", "random",
                "--chunk-matches", "4", "--out", f"{folder}/", "--quiet", *extra]  # fmt: skip
        assert main(argv) == 0
        out[kind] = (folder, argv)
    return out


def _mutate(meta: dict, path: list, value, delete: bool) -> dict:
    meta = json.loads(json.dumps(meta))
    node = meta
    for key in path[:-1]:
        node = node[key]
    if delete:
        del node[path[-1]]
    else:
        node[path[-1]] = value
    return meta


def _paths(meta: dict, kind: str) -> list:
    top = [[k] for k in meta if k != "summary"] + [["chunk", 0], ["chunk", 1]]
    if kind == "summary":
        top += [["summary", k] for k in meta["summary"]]
    return top


@pytest.mark.parametrize("kind", ["records", "summary"])
@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_damaged_metadata_is_refused_or_harmless(kind, datasets, data, capsys):
    src, argv = datasets[kind]
    work = Path(tempfile.mkdtemp(prefix="mjlab-claims-"))
    try:
        folder = work / "d"
        shutil.copytree(src, folder)
        victim = sorted(folder.glob("chunk-*.parquet"))[data.draw(st.integers(0, 4))]
        pm = fileio.read_meta(victim)
        path = data.draw(st.sampled_from(_paths(pm.meta, kind)), label="key")
        delete = path[0] != "chunk" and data.draw(st.booleans(), label="delete")
        value = data.draw(JSON, label="value")
        meta = _mutate(pm.meta, path, value, delete)
        fileio.write_parquet(victim, pq.read_table(victim), meta)  # crafted: checksums hold
        code = main(["summarize", str(folder), "--json"])
        out, err = capsys.readouterr()
        event(f"{kind} summarize: exit {code}")
        assert code in (0, 2), err
        if code == 2:
            assert err.count("\n") == 1 and "Traceback" not in err and victim.name in err, err
        else:  # accepted: never a run that did not happen
            assert json.loads(out)["deals"] == 320
            if kind == "records":  # the rows are the truth: the metadata changed nothing
                assert main(["summarize", str(src), "--json"]) == 0
                assert capsys.readouterr().out == out
        code = main([f"{folder}/" if a == f"{src}/" else a for a in argv])
        err = capsys.readouterr().err
        replayed = code == 0 and "playing it again" in err
        event(f"{kind} resume: exit {code}{' (replayed the chunk)' if replayed else ''}")
        assert code in (0, 2), err
        if code == 2:
            assert err.count("\n") == 1 and "Traceback" not in err and victim.name in err, err
        elif kind == "records":  # accepted: every chunk holds this run's identity and rows
            assert sorted(p.name for p in folder.iterdir()) == sorted(p.name for p in src.iterdir())
            for p in src.iterdir():
                assert fileio.read_meta(folder / p.name).meta == fileio.read_meta(p).meta
                assert pq.read_table(folder / p.name).equals(pq.read_table(p))
    finally:
        shutil.rmtree(work, ignore_errors=True)
