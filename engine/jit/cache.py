"""The on-disk cache: compiled kernels (engine.jit.njit) and built tables (hand tables).

The folder is ``$MJLAB_CACHE_DIR`` if set, else the platform's user cache folder
(``~/.cache/mjlab``). **Only its owner may be able to change it.** numba's cache index
and data files are pickles, so whoever can write them runs code in every mjlab process
that loads them; a table that someone else changed gives wrong answers. So, before
anything is read from it:

- the folder, and every folder between it and a file read, must belong to the user
  running mjlab and not be writable by group or others;
- every file read must be a regular file that belongs to the user and is not writable
  by group or others (checked on the open file, so it cannot be swapped in between).

Otherwise mjlab refuses with :class:`CacheError`: one line naming the folder or file and
the fix (``chmod go-w``, removing the file, or a private ``MJLAB_CACHE_DIR``), exit 1.
It does not fall back to another folder: a cache that fails the check is a sign to look
at, not to route around. Folders are created ``0700`` and files without group/other
write permission, whatever the umask, so mjlab never trips over its own files.

numba reads and writes the compiled kernels' files itself (engine.jit.njit points it at a
folder of this cache), so their folder is checked whole, by :func:`check_tree`, before
numba reads anything from it in a process: every folder and file under it must pass the
checks above (and be a plain folder or regular file, not a link). Once it has, nobody
else can add or change a file there.

**A damaged compiled file is compiled again, never loaded.** numba writes each file whole
(to a temporary name, then renamed over the old one) and does not check what it reads
back: a truncated index stops every run with a traceback, a changed byte of machine code
may run. So each of its files gets a pin beside it (``<file>.<size>-<crc>.pin``: a hard
link to the file, named by its size and CRC-32), made after numba writes it
(:func:`record_sums`), and :func:`verify_sums` removes, with a one-line notice, a file
whose bytes changed where it lies (it shares its inode with a pin whose name does not
match); numba then compiles its kernels again. A file with no pin of its inode (new, or
renamed in since: another process sharing the cache wrote it) is pinned. The pin's link
is what makes the inode a file's identity: it keeps the number from passing to a later
file while the pin exists. (On a file system without hard links nothing is pinned, and a
damaged file there is not caught.)

Tables are stored under a key that hashes the builder's source, so a change to a builder
invalidates its cache, with a SHA-256 of the stored bytes in the file's first line: a
table whose bytes do not match (a damaged disk, a killed copy) is rebuilt, with a
message. Files are written to a temporary name and renamed, so a killed build never
leaves a truncated table behind; ``.npz`` payloads are read with ``allow_pickle=False``.
"""

from __future__ import annotations

import contextlib
import hashlib
import inspect
import io
import os
import stat
import sys
import tempfile
import threading
import zlib
from pathlib import Path

import numpy as np
import platformdirs

__all__ = [
    "CacheError",
    "cache_dir",
    "cache_path",
    "check_folder",
    "check_tree",
    "open_private",
    "private_makedirs",
    "source_key",
    "load_or_build",
    "record_sums",
    "verify_sums",
]


class CacheError(PermissionError):
    """A cache folder or file that someone other than the user could have written
    (engine.jit.cache): mjlab will not load from it.

    The CLI reports it as one line on stderr (naming the path and the fix) and exits 1.
    """


_GROUP_OTHER_WRITE = stat.S_IWGRP | stat.S_IWOTH

_TABLE_MAGIC = b"mjlab-table sha256="
_TABLE_SUFFIX = ".table"


def _euid() -> int:
    return os.geteuid() if hasattr(os, "geteuid") else -1


def _owner_fault(path: Path, st: os.stat_result, what: str) -> str | None:
    uid = _euid()
    if uid == -1:  # no POSIX owners (Windows): nothing to compare
        return None
    if st.st_uid != uid:
        return f"{path}: {what} belongs to user {st.st_uid}, not to you (user {uid})"
    if st.st_mode & _GROUP_OTHER_WRITE:
        return f"{path}: {what} is writable by group or others (mode {stat.S_IMODE(st.st_mode):o})"
    return None


def _folder_error(path: Path, fault: str) -> CacheError:
    return CacheError(
        f"{fault}; mjlab loads compiled code from it, so only you may be able to "
        f"change it: run chmod -R go-w {path} if it is yours, else set "
        "MJLAB_CACHE_DIR to a folder of your own"
    )


def _file_error(path: Path, fault: str) -> CacheError:
    return CacheError(
        f"{fault}; mjlab does not load cache files another user could have "
        f"written: remove it (rm {path}) after checking where it came from"
    )


def check_folder(path: Path) -> None:
    """CacheError unless ``path`` is a folder the user owns and only the user can write."""
    path = Path(path)
    st = os.stat(path)
    if not stat.S_ISDIR(st.st_mode):
        raise CacheError(f"{path}: the mjlab cache folder is not a folder; set MJLAB_CACHE_DIR")
    fault = _owner_fault(path, st, "mjlab's cache folder")
    if fault:
        raise _folder_error(path, fault)


def check_tree(folder, root) -> None:
    """CacheError unless ``folder``, the folders above it up to ``root`` and everything
    under it belong to the user and only the user can write them: folders and regular
    files only (a link is refused: it could lead anywhere).
    """
    folder = Path(folder)
    _check_chain(folder, root)
    for top, dirs, files in os.walk(folder):
        for name in (*dirs, *files):
            path = Path(top, name)
            st = os.lstat(path)
            if stat.S_ISDIR(st.st_mode):
                fault = _owner_fault(path, st, "a folder of mjlab's cache")
                if fault:
                    raise _folder_error(path, fault)
            elif stat.S_ISREG(st.st_mode):
                fault = _owner_fault(path, st, "this cached file")
                if fault:
                    raise _file_error(path, fault)
            else:
                raise _file_error(path, f"{path}: not a regular file or folder")


_CHECKED: set[Path] = set()
"""Folders that passed :func:`check_folder` in this process."""


def _check_chain(folder: Path, root: Path) -> None:
    """Check ``folder`` and each folder above it up to ``root`` (once per process)."""
    folder, root = Path(folder), Path(root)
    chain = [folder, *folder.parents]
    if root in chain:
        chain = chain[: chain.index(root) + 1]
    else:
        chain = [folder]
    for f in chain:
        if f not in _CHECKED:
            check_folder(f)
            _CHECKED.add(f)


def open_private(path, root):
    """Open ``path`` (binary) for reading after checking that only the user can change it.

    The file's owner and mode are checked on the open descriptor, and its folders up to
    ``root`` by :func:`check_folder`; CacheError names the file and the fix.
    FileNotFoundError passes through (nothing cached yet).
    """
    path = Path(path)
    f = open(path, "rb")  # noqa: SIM115 - returned to the caller
    try:
        st = os.fstat(f.fileno())
        fault = (
            f"{path}: not a regular file"
            if not stat.S_ISREG(st.st_mode)
            else _owner_fault(path, st, "this cached file")
        )
        if fault:
            raise _file_error(path, fault)
        _check_chain(path.parent, root)
    except BaseException:
        f.close()
        raise
    return f


def private_makedirs(path, root=None) -> Path:
    """Create ``path`` and missing parents up to ``root`` as ``0700`` folders.

    The umask can only remove permissions, so a group-writable umask (``002``) cannot make
    them group-writable. Existing folders are left as they are (and checked on use).
    """
    path = Path(path)
    missing = []
    p = path
    while not p.exists() and p != p.parent and (root is None or p != Path(root).parent):
        missing.append(p)
        p = p.parent
    for p in reversed(missing):
        try:
            p.mkdir(mode=0o700)
        except FileExistsError:
            continue
        os.chmod(p, stat.S_IMODE(os.stat(p).st_mode) & ~_GROUP_OTHER_WRITE)
    return path


def cache_path() -> Path:
    """The cache folder's path (``$MJLAB_CACHE_DIR``, else the user's cache folder)."""
    path = Path(os.environ.get("MJLAB_CACHE_DIR") or platformdirs.user_cache_dir("mjlab"))
    return path.expanduser().absolute()


def cache_dir() -> Path:
    """The cache folder (created ``0700`` on first use), checked by :func:`check_folder`."""
    path = cache_path()
    if path not in _CHECKED:
        private_makedirs(path)
        check_folder(path)
        _CHECKED.add(path)
    return path


def source_key(*objects) -> str:
    """A short hash of the source code of the given modules or functions."""
    h = hashlib.sha256()
    for obj in objects:
        h.update(inspect.getsource(obj).encode())
    return h.hexdigest()[:16]


def _read_table(path: Path, root: Path) -> dict[str, np.ndarray] | None:
    """The arrays of a cached table, or None (with a message) if its checksum fails."""
    with open_private(path, root) as f:
        raw = f.read()
    head, _, payload = raw.partition(b"\n")
    digest = hashlib.sha256(payload).hexdigest().encode()
    if head != _TABLE_MAGIC + digest:
        print(
            f"mjlab: cached table {path} is damaged (its checksum does not match); rebuilding it",
            file=sys.stderr,
        )
        return None
    with np.load(io.BytesIO(payload), allow_pickle=False) as data:
        return {k: data[k] for k in data.files}


def _write_table(path: Path, arrays: dict[str, np.ndarray]) -> None:
    buf = io.BytesIO()
    np.savez(buf, **arrays)
    payload = buf.getvalue()
    head = _TABLE_MAGIC + hashlib.sha256(payload).hexdigest().encode() + b"\n"
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(head)
            f.write(payload)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def load_or_build(name: str, key: str, build, folder=None) -> dict[str, np.ndarray]:
    """Load the arrays cached as ``name-key.table``, or call ``build()`` and cache its dict.

    A cached file that fails its checksum is rebuilt (with a message on stderr); one that
    another user could have written is refused (CacheError).
    """
    root = Path(folder) if folder is not None else cache_dir()
    path = root / f"{name}-{key}{_TABLE_SUFFIX}"
    try:
        arrays = _read_table(path, root)
    except FileNotFoundError:
        arrays = None
    if arrays is not None:
        return arrays
    arrays = build()
    _prune(root, name, keep=path)
    _write_table(path, arrays)
    return arrays


def _prune(folder: Path, name: str, keep: Path, n: int = 2) -> None:
    """Remove all but the ``n`` newest other cached versions of ``name`` (and old ``.npz``)."""
    for legacy in folder.glob(f"{name}-*.npz"):
        legacy.unlink(missing_ok=True)
    others = sorted(
        (p for p in folder.glob(f"{name}-*{_TABLE_SUFFIX}") if p != keep),
        key=lambda p: p.stat().st_mtime,
    )
    for old in others[: max(0, len(others) - n)]:
        old.unlink(missing_ok=True)


# ---- checksums of the files numba writes ----------------------------------------------
_PIN = ".pin"
_OLD_SUM = ".sum"  # the checksum files of earlier versions (inode, size, CRC-32): removed


def _scan(folder: Path) -> tuple[list[Path], dict[Path, list[tuple[Path, tuple[int, int]]]]]:
    """The files under ``folder`` (sorted; not pins or temporary files), and the pins of
    each, with the size and CRC-32 that a pin's name records. Pins whose file is gone
    and old checksum files are removed.
    """
    files, pins = [], {}
    for top, _, names in os.walk(folder):
        present = set(names)
        for name in names:
            path = Path(top, name)
            if ".tmp." in name:
                if name.endswith(_PIN) and not _alive(name):
                    with contextlib.suppress(OSError):
                        os.unlink(path)  # a pin's temporary name, left by a killed process
                continue
            if name.endswith(_PIN):
                stem, _, fields = name[: -len(_PIN)].rpartition(".")
                size, _, crc = fields.partition("-")
                if stem in present and size.isdigit() and crc.isdigit():
                    pins.setdefault(Path(top, stem), []).append((path, (int(size), int(crc))))
                    continue
            elif not name.endswith(_OLD_SUM):
                files.append(path)
                continue
            with contextlib.suppress(OSError):
                os.unlink(path)
    return sorted(files), pins


def _alive(tmp_pin: str) -> bool:
    """Whether the process that named the temporary pin ``tmp_pin`` may still run."""
    pid = tmp_pin[: -len(_PIN)].rsplit(".tmp.", 1)[-1].split(".")[0]
    if not pid.isdigit():
        return False
    if os.name == "nt":  # os.kill there ends the process: leave it
        return True
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return False
    except OSError:  # another user's process, or no signals here: leave it
        return True
    return True


def _crc(f) -> int:
    crc = 0
    while chunk := f.read(1 << 20):
        crc = zlib.crc32(chunk, crc)
    return crc


def _pin(path: Path, pins) -> int | None:
    """Pin the file now at ``path`` and remove its other pins; its inode, or None if it
    could not be pinned (it is then pinned on a later look).

    A pin is a hard link to the file named by its size and CRC-32
    (``<file>.<size>-<crc>.pin``). The link keeps the inode allocated, so no later file
    can be given its number while the pin exists: a file with a pin's inode is the very
    file the pin measured.
    """
    tmp = path.with_name(f"{path.name}.tmp.{os.getpid()}.{threading.get_ident()}{_PIN}")
    with contextlib.suppress(OSError):
        os.unlink(tmp)  # left by a killed process that had this number
    try:
        os.link(path, tmp)
    except OSError:  # gone meanwhile, or no hard links on this file system
        return None
    try:
        with open(tmp, "rb") as f:
            st = os.fstat(f.fileno())
            name = f"{path.name}.{st.st_size}-{_crc(f)}{_PIN}"
        os.replace(tmp, path.with_name(name))
    except OSError:
        return None
    finally:
        # a rename onto another link of the same file does nothing: the name stays
        with contextlib.suppress(OSError):
            os.unlink(tmp)
    for pin, _ in pins:  # older versions' pins (a pin of the same bytes was replaced)
        if pin.name != name:
            with contextlib.suppress(OSError):
                os.unlink(pin)
    return st.st_ino


_RECORDED: dict[Path, int] = {}
"""Files this process pinned or verified, by path: their inode then."""


def verify_sums(folder) -> list[Path]:
    """Remove each file under ``folder`` whose bytes changed where it lies since it was
    pinned, with one line on stderr naming them; return them. A file without a pin of
    its inode (new, or renamed in since: another process sharing the cache wrote it) is
    pinned.

    A pin (:func:`_pin`) holds its file's inode, so the number cannot pass to another
    file while the pin exists: a file that shares its inode with a pin is the file the pin
    measured, and other bytes can only have been written into it where it lies. (Checking
    the inode number alone would take a new file given a freed number for a damaged one.)
    """
    damaged = []
    files, pins = _scan(Path(folder))
    for path in files:
        mine = pins.get(path, [])
        try:
            f = open(path, "rb")  # noqa: SIM115 - held open while its pins are compared
        except FileNotFoundError:  # replaced or removed meanwhile
            continue
        with f:  # held open: its inode number stays its own while the pins are read
            st = os.fstat(f.fileno())
            kept = []
            for pin, recorded in mine:
                with contextlib.suppress(OSError):
                    if os.stat(pin).st_ino == st.st_ino:
                        kept.append(recorded)
            measured = (st.st_size, _crc(f)) if kept else None  # read once: f is at its end after
            bad = any(r != measured for r in kept)
        if bad:
            damaged.append(path)
            for p in (path, *(pin for pin, _ in mine)):
                with contextlib.suppress(OSError):
                    os.unlink(p)
            continue
        ino = st.st_ino if kept else _pin(path, mine)
        if ino is not None:
            _RECORDED[path] = ino
    if damaged:
        named = ", ".join(map(str, damaged[:3]))
        if len(damaged) > 3:
            named += f" and {len(damaged) - 3} more"
        one = len(damaged) == 1
        print(
            f"mjlab: compiled-kernel cache file{'' if one else 's'} {named} "
            f"{'is' if one else 'are'} damaged (the checksum does not match); removed: "
            f"{'its' if one else 'their'} kernels are compiled again",
            file=sys.stderr,
            flush=True,
        )
    return damaged


def record_sums(folder) -> None:
    """Pin each file under ``folder`` written since this process last pinned or verified
    it (a new inode: numba writes a file whole, renamed in), dropping its older pins.
    """
    files, pins = _scan(Path(folder))
    for path in files:
        try:
            ino = os.stat(path).st_ino
        except FileNotFoundError:
            continue
        if _RECORDED.get(path) == ino:
            continue
        pinned = _pin(path, pins.get(path, []))
        if pinned is not None:
            _RECORDED[path] = pinned
