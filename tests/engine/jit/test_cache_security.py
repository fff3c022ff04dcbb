"""A cache only its owner can change (issue 23.2), that keeps the same sources, and whose
damaged files are compiled again (issue 46.4).

numba's cache index files are pickles: whoever can write them runs code in mjlab. The
tests plant a booby-trapped index (unpickling it creates a marker file) where a kernel's
index lives, show that a private cache does load it (so the trap is real), then that a
group- or other-writable folder, a group-writable file and a file of another user are
refused with one line and exit 1, the trap never sprung. They may run as root: a
"foreign" file is then one chowned to another user; without root, the user id mjlab
compares against is shifted instead.
"""

import hashlib
import io
import os
import pickle
import shutil
import subprocess
import sys
import zlib
from pathlib import Path

import numpy as np
import pytest

from engine.errors import CacheError
from engine.jit import cache as _cache
from engine.jit.cache import load_or_build

REPO = Path(__file__).resolve().parents[3]

_KERNEL = (
    "from engine import rng\n"
    "from engine.jit.njit import compiled_dir\n"
    "rng.stream(1, 2, 3, 4)\n"
    "print(*compiled_dir().rglob('rng.seed_state-*.nbi'))\n"
    "print(sum(rng.seed_state.stats.cache_hits.values()),"
    " sum(rng.seed_state.stats.cache_misses.values()))\n"
)
"""Compile or load one small kernel; print its index file and its cache hits and misses."""


def _run(cache, code=_KERNEL, cwd=REPO):
    env = {**os.environ, "MJLAB_CACHE_DIR": str(cache)}
    env.pop("NUMBA_CACHE_DIR", None)
    return subprocess.run(
        [sys.executable, "-c", code], cwd=cwd, env=env, capture_output=True, text=True
    )


def _cli(cache, *args):
    main = "import sys; from mjlab.cli import main; sys.exit(main(sys.argv[1:]))"
    env = {**os.environ, "MJLAB_CACHE_DIR": str(cache)}
    env.pop("NUMBA_CACHE_DIR", None)
    return subprocess.run(
        [sys.executable, "-c", main, *args], cwd=REPO, env=env, capture_output=True, text=True
    )


class _Trap:
    """Unpickles to numba's version string, creating the marker file on the way."""

    def __init__(self, marker):
        self.marker = str(marker)

    def __reduce__(self):
        import numba

        code = f"(open({self.marker!r}, 'w').close(), {numba.__version__!r})[1]"
        return (eval, (code,))


def _plant(index: Path, marker: Path, original: bytes | None = None) -> None:
    """Put the trap in front of an index file's content (``original``, default the file's):
    loading it runs code, then goes on as usual (so no kernel recompiles). The file is
    replaced whole, as numba writes its files (one changed where it lies is damaged)."""
    raw = index.read_bytes() if original is None else original
    f = io.BytesIO(raw)
    pickle.load(f)  # numba's version string (never load a planted file here)
    tmp = index.with_name(index.name + ".planted")
    tmp.write_bytes(pickle.dumps(_Trap(marker)) + raw[f.tell() :])
    tmp.chmod(0o644)
    os.replace(tmp, index)


def _one_line(proc) -> str:
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    assert "Traceback" not in proc.stderr
    return lines[0]


HAND = ("hand", "123m456p789s1122z")


@pytest.fixture(scope="module")
def warm_cache(tmp_path_factory):
    """A cache holding the kernels and tables of ``mjlab hand`` (compiled once)."""
    cache = tmp_path_factory.mktemp("warm") / "cache"
    proc = _cli(cache, *HAND)
    assert proc.returncode == 0, proc.stderr
    assert list(cache.rglob("*.nbi"))
    return cache


@pytest.fixture
def trapped(tmp_path, warm_cache):
    """A private cache whose every index file is a booby trap (shown to spring)."""
    cache, marker = tmp_path / "cache", tmp_path / "sprung"
    shutil.copytree(warm_cache, cache)
    indexes = sorted(cache.rglob("*.nbi"))
    originals = [index.read_bytes() for index in indexes]
    for index, raw in zip(indexes, originals, strict=True):
        _plant(index, marker, raw)
    control = _cli(cache, *HAND)  # a private cache is loaded from: the trap springs
    assert control.returncode == 0 and marker.exists(), control.stderr
    assert "compiling" not in control.stderr  # the planted files still load as a cache
    marker.unlink()
    for index, raw in zip(indexes, originals, strict=True):
        _plant(index, marker, raw)
    return cache, indexes, marker


@pytest.mark.parametrize("mode", [0o770, 0o757])
def test_a_group_or_other_writable_cache_folder_is_never_loaded_from(trapped, mode):
    cache, _, marker = trapped
    cache.chmod(mode)
    proc = _cli(cache, *HAND)
    assert proc.returncode == 1
    line = _one_line(proc)
    assert str(cache) in line and "writable by group or others" in line
    assert f"chmod -R go-w {cache}" in line and "MJLAB_CACHE_DIR" in line
    assert not proc.stdout
    assert _run(cache).returncode != 0  # the Python API refuses as well
    assert not marker.exists()


def test_a_writable_subfolder_or_file_in_the_cache_is_refused(trapped):
    cache, indexes, marker = trapped
    sub = indexes[0].parent  # numba-<hash>/hand/
    sub.chmod(0o777)
    proc = _cli(cache, *HAND)
    assert proc.returncode == 1 and not marker.exists()
    line = _one_line(proc)
    assert str(sub) in line and "writable by group or others" in line
    sub.chmod(0o700)
    for index in indexes:
        index.chmod(0o664)
    proc = _cli(cache, *HAND)
    assert proc.returncode == 1 and not marker.exists()
    line = _one_line(proc)
    assert "writable by group or others" in line and "rm " in line
    assert any(str(index) in line for index in indexes)


def _make_foreign(path: Path, monkeypatch) -> None:
    """``path`` belongs to another user: chowned (as root), else mjlab's uid shifted."""
    if os.geteuid() == 0:
        os.chown(path, 65534, 65534)
    else:
        uid = os.geteuid()
        monkeypatch.setattr(_cache, "_euid", lambda: uid + 1)


def test_a_foreign_index_file_under_the_cache_name_is_not_loaded(trapped, monkeypatch):
    cache, indexes, marker = trapped
    if os.geteuid() == 0:
        for index in indexes:
            os.chown(index, 65534, 65534)
        proc = _cli(cache, *HAND)
        assert proc.returncode == 1 and not marker.exists()
        line = _one_line(proc)
        assert "belongs to user 65534" in line and any(str(i) in line for i in indexes)
    # the same check in this process, on the folder numba reads
    folder = cache / "planted"
    folder.mkdir(mode=0o700)
    index = folder / "k.nbi"
    index.write_bytes(b"")
    import numba

    _plant(index, marker, pickle.dumps(numba.__version__) + pickle.dumps(("s", {})))
    _make_foreign(index, monkeypatch)
    with pytest.raises(CacheError, match="belongs to user"):
        _cache.check_tree(folder, cache)
    assert not marker.exists()


def test_numba_reads_nothing_before_the_cache_is_checked(monkeypatch):
    # in this process: the first compile or load (numba's compiler lock) checks the
    # folder numba reads first; here every file looks foreign, so it stops there
    from engine.jit import njit as _numba

    @_numba.kernel(cache=False)
    def _probe(x):
        return x + 1

    uid = os.geteuid()
    monkeypatch.setattr(_cache, "_euid", lambda: uid + 1)
    monkeypatch.setattr(_cache, "_CHECKED", set())
    monkeypatch.setattr(_numba, "_CHECKED", [False])
    with pytest.raises(CacheError, match="belongs to user"):
        _probe(1)
    assert _probe.signatures == []  # stopped before numba compiled or loaded anything
    monkeypatch.undo()
    assert _probe(1) == 2


def _arrays():
    return {"a": np.arange(1000, dtype=np.int64), "b": np.eye(7, dtype=np.uint8)}


def test_a_foreign_table_under_the_cache_name_is_not_loaded(tmp_path, monkeypatch):
    calls = []
    load_or_build("t", "k1", lambda: calls.append(1) or _arrays(), folder=tmp_path)
    path = tmp_path / "t-k1.table"
    assert path.exists() and len(calls) == 1
    _make_foreign(path, monkeypatch)
    with pytest.raises(CacheError, match="belongs to user"):
        load_or_build("t", "k1", lambda: calls.append(1) or _arrays(), folder=tmp_path)
    assert len(calls) == 1


def _flip(path: Path, offset: int) -> None:
    raw = bytearray(path.read_bytes())
    raw[offset] ^= 0x01
    path.write_bytes(bytes(raw))


def test_a_flipped_byte_in_a_cached_table_is_detected_and_rebuilt(tmp_path, capsys):
    from engine.hand import _tables

    key = _cache.source_key(_tables)
    calls = []

    def build():
        calls.append(1)
        return _tables._build_all()

    first = load_or_build("hand-tables", key, build, folder=tmp_path)
    path = tmp_path / f"hand-tables-{key}.table"
    _flip(path, path.stat().st_size // 2)  # inside the suit table
    again = load_or_build("hand-tables", key, build, folder=tmp_path)
    err = capsys.readouterr().err
    assert f"cached table {path} is damaged" in err and "rebuilding" in err
    assert set(again) == set(first) and len(calls) == 2
    assert all(np.array_equal(again[k], first[k]) for k in first)
    load_or_build("hand-tables", key, build, folder=tmp_path)
    assert len(calls) == 2 and not capsys.readouterr().err  # the rebuilt file is sound
    head, _, payload = path.read_bytes().partition(b"\n")
    assert head == b"mjlab-table sha256=" + hashlib.sha256(payload).hexdigest().encode()
    # any byte: the zip directory at the end, the stored digest, the first payload byte
    small = []
    load_or_build("t", "k", lambda: small.append(1) or _arrays(), folder=tmp_path)
    path = tmp_path / "t-k.table"
    size = path.stat().st_size
    for n, offset in enumerate((size - 1, 30, len(b"mjlab-table sha256=") + 65), start=2):
        _flip(path, offset)
        again = load_or_build("t", "k", lambda: small.append(1) or _arrays(), folder=tmp_path)
        assert "is damaged" in capsys.readouterr().err and len(small) == n
        assert all(np.array_equal(again[k], v) for k, v in _arrays().items())


def test_cache_files_are_private_whatever_the_umask(tmp_path):
    cache = tmp_path / "deep" / "cache"
    code = "import os; os.umask(0o002)\n" + _KERNEL
    proc = _run(cache, code)
    assert proc.returncode == 0, proc.stderr
    paths = [cache, *cache.rglob("*")]
    assert any(p.suffix == ".nbi" for p in paths)
    for p in paths:
        assert p.stat().st_mode & 0o022 == 0, p


def test_the_compile_cache_keeps_the_same_sources_and_never_runs_stale_code(tmp_path):
    import numba

    cache = tmp_path / "cache"
    a, b = tmp_path / "site-a", tmp_path / "site-b"
    ignore = shutil.ignore_patterns("__pycache__")
    shutil.copytree(REPO / "engine", a / "engine", ignore=ignore)
    first = _run(cache, cwd=a)
    assert first.returncode == 0, first.stderr
    assert first.stdout.split()[-2:] == ["0", "1"]  # compiled
    assert "compiling" in first.stderr  # and said so
    second = _run(cache, cwd=a)
    assert second.stdout.split()[-2:] == ["1", "0"]  # loaded, not compiled
    assert "compiling" not in second.stderr
    # a reinstall that rewrites the same files: numba (>= 0.68) stamps a kernel with its
    # file's content, earlier versions with its modification time
    for p in (a / "engine").rglob("*.py"):
        os.utime(p, (1.9e9, 1.9e9))
    third = _run(cache, cwd=a)
    content_stamp = tuple(int(v) for v in numba.__version__.split(".")[:2]) >= (0, 68)
    assert third.stdout.split()[-2:] == (["1", "0"] if content_stamp else ["0", "1"])
    # the same sources at another path: numba files a kernel by its folder's path
    shutil.copytree(REPO / "engine", b / "engine", ignore=ignore)
    elsewhere = _run(cache, cwd=b)
    assert elsewhere.returncode == 0, elsewhere.stderr
    assert elsewhere.stdout.split()[-2:] == ["0", "1"]
    # an edited kernel source is a new cache, never stale code
    rng = b / "engine" / "rng.py"
    rng.write_text(rng.read_text(encoding="utf-8") + "\n# edited\n", encoding="utf-8")
    edited = _run(cache, cwd=b)
    assert edited.stdout.split()[-2:] == ["0", "1"]
    assert len(list(cache.glob("numba-*"))) == 2  # one folder per version of the sources


def _garble(path: Path) -> None:
    """Change bytes of ``path`` where it lies (a damaged disk, a stray write)."""
    raw = bytearray(path.read_bytes())
    for i in range(len(raw) // 2, min(len(raw), len(raw) // 2 + 40)):
        raw[i] ^= 0xA5
    with open(path, "r+b") as f:
        f.write(bytes(raw))


@pytest.mark.parametrize("damage", ["truncated index", "garbled index", "garbled data", "both"])
def test_a_damaged_compiled_file_is_compiled_again_with_a_notice(tmp_path, warm_cache, damage):
    cache = tmp_path / "cache"
    shutil.copytree(warm_cache, cache)
    warm = _cli(cache, *HAND)
    assert warm.returncode == 0 and warm.stderr == "", warm.stderr
    index = sorted(cache.rglob("_kernels.shanten_one-*.nbi"))[0]
    data = sorted(cache.rglob("_kernels.shanten_one-*.nbc"))[0]
    if damage == "truncated index":
        with open(index, "r+b") as f:
            f.truncate(index.stat().st_size // 3)
    if damage in ("garbled index", "both"):
        _garble(index)
    if damage in ("garbled data", "both"):
        _garble(data)
    proc = _cli(cache, *HAND)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == warm.stdout
    assert "Traceback" not in proc.stderr
    notice = [line for line in proc.stderr.splitlines() if "damaged" in line]
    assert len(notice) == 1, proc.stderr
    assert "compiled-kernel cache file" in notice[0] and "compiled again" in notice[0]
    assert (str(index) in notice[0]) == (damage != "garbled data")
    assert (str(data) in notice[0]) == (damage in ("garbled data", "both"))
    again = _cli(cache, *HAND)  # compiled again and cached: a quiet run
    assert again.returncode == 0 and again.stderr == "" and again.stdout == warm.stdout


def _rewrite(path: Path, data: bytes) -> None:
    """Replace ``path`` whole, the way numba writes its cache files (a temporary name,
    renamed over it)."""
    tmp = path.with_name(f"{path.name}.tmp.test")
    tmp.write_bytes(data)
    os.replace(tmp, path)


def test_a_file_rewritten_whole_is_never_taken_for_a_damaged_one(tmp_path, capsys):
    # Two processes sharing a cache may each rewrite a file before either looks again.
    # The second rewrite's file is often given the inode number the first one freed; a
    # checksum keyed on the inode number alone then called it damaged (a CI run's notice).
    folder = tmp_path / "numba"
    folder.mkdir()
    path = folder / "kernel.sig"
    path.write_bytes(b"v0")
    assert _cache.verify_sums(folder) == []
    for i in range(1, 60):
        _rewrite(path, b"v%d-first" % i)
        _rewrite(path, b"v%d-second" % i)
        assert _cache.verify_sums(folder) == [], i
        assert path.read_bytes() == b"v%d-second" % i
    assert "damaged" not in capsys.readouterr().err
    # pinned once more (another process pinning it too): one pin, no temporary name left
    _cache._RECORDED.clear()
    _cache.record_sums(folder)
    assert sorted(p.name for p in folder.iterdir()) == [
        "kernel.sig",
        f"kernel.sig.{path.stat().st_size}-{zlib.crc32(path.read_bytes())}.pin",
    ]
    # a pin's temporary name left by a process that is gone is removed
    os.link(path, folder / "kernel.sig.tmp.999999999.1.pin")
    _cache.record_sums(folder)
    assert not [p for p in folder.iterdir() if ".tmp." in p.name]
    _garble(path)  # and a change in place is still caught
    assert _cache.verify_sums(folder) == [path]
    assert not path.exists() and list(folder.iterdir()) == []
