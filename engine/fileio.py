"""Writing files safely, the mjlab Parquet metadata, and output locks: the one place for each.

Every file mjlab writes goes through :func:`atomic_write`: the bytes go to a hidden
temporary file in the target's folder (``.NAME~HOST~PID~RANDOM.tmp``, created with
``O_EXCL`` and mode ``0o666`` so that the user's umask decides the permissions, 0644
under the usual 022), are flushed and fsynced, and the file is renamed over the target.
On any failure the temporary file is removed and the target is left as it was; an
``OSError`` is re-raised naming the target (the CLI reports it in one line, exit 1).

A mjlab Parquet file (:func:`write_parquet`) carries two key-value entries in its
footer:

- ``mjlab``: the run identity as JSON (also in the Arrow schema's metadata, so
  ``pyarrow.parquet.read_schema(path).metadata[b"mjlab"]`` reads it);
- ``mjlab.sha256``: ``{"file": ..., "meta": ...}``, the SHA-256 of the whole file's
  bytes (with the 64 hex digits of ``file`` itself read as ``0``: they are written as
  zeros, hashed, and then filled in) and of the canonical JSON of the identity.
  :func:`verify` recomputes the first over the bytes, so a flipped byte anywhere in the
  file, data, footer, column names or magic, is found without decoding anything.

:class:`OutputLock` is the lock of one output (a folder or a file): a lock file holding the
host, pid and run, made whole under a temporary name and hard-linked into place (so it
exists with its content or not at all), kept under an ``flock`` for the life of the
holder, and never followed through a symbolic link. A second writer is refused
(:class:`~engine.errors.UsageError` naming the holder and the lock); a lock left by a
process that is gone (``kill -9``), or left empty by one that could not write it, is
taken over with a one-line message.

:func:`staged_folder` makes a folder's new files appear all or nothing (the report, the
rules pages, the figures of ``--plot``).
"""

from __future__ import annotations

import atexit
import contextlib
import errno
import fcntl
import hashlib
import json
import os
import re
import secrets
import socket
import stat
import struct
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from .errors import UsageError

__all__ = [
    "print_json",
    "META_KEY",
    "SUM_KEY",
    "atomic_write",
    "write_bytes",
    "write_parquet",
    "read_meta",
    "verify",
    "meta_digest",
    "meta_intact",
    "ParquetMeta",
    "NotMjlab",
    "OutputLock",
    "remove_dead_temps",
    "is_temp",
    "staged_folder",
    "file_digest",
    "damaged_output",
    "os_error_text",
    "os_fault",
]

META_KEY = b"mjlab"
"""Parquet key-value metadata key of the run identity (JSON)."""

SUM_KEY = b"mjlab.sha256"
"""Parquet key-value metadata key of the checksums (JSON)."""

_HOST = socket.gethostname()
_TEMP = re.compile(r"^\.(?P<name>.+)~(?P<host>[^~]*)~(?P<pid>\d+)~[0-9a-f]+\.tmp$")


def os_error_text(exc: OSError) -> str:
    """One line naming the path and the cause of an ``OSError`` (no errno number)."""
    cause = exc.strerror or str(exc) or type(exc).__name__
    name = exc.filename if exc.filename is not None else getattr(exc, "mjlab_path", None)
    return f"{name}: {cause}" if name is not None else cause


def os_fault(exc: OSError, path) -> OSError:
    """``exc`` as an OSError naming ``path`` (its errno and cause kept)."""
    if exc.errno is None:
        return OSError(None, exc.strerror or str(exc) or type(exc).__name__, str(path))
    return OSError(exc.errno, exc.strerror or os.strerror(exc.errno), str(path))


# ----------------------------------------------------------------------------- writing
def _temp_name(path: Path) -> Path:
    return path.with_name(f".{path.name}~{_HOST}~{os.getpid()}~{secrets.token_hex(4)}.tmp")


def is_temp(name: str) -> bool:
    """Whether a file name is one of :func:`atomic_write`'s temporary names (or older ones)."""
    return name.startswith(".") and name.endswith(".tmp")


def atomic_write(path, write: Callable) -> None:
    """Write ``path`` atomically: ``write(f)`` fills a temporary file, then it is renamed.

    Parameters
    ----------
    path : str or Path
        The target. Its folder must exist.
    write : callable
        Called with a binary file object open on the temporary file.

    Raises
    ------
    OSError
        Naming ``path`` (full disk, permission, read-only folder...); the temporary
        file is gone and ``path`` is untouched.
    """
    path = Path(path)
    tmp = _temp_name(path)
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
    except OSError as exc:
        raise os_fault(exc, path) from exc
    try:
        with os.fdopen(fd, "wb") as f:
            write(f)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException as exc:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        if isinstance(exc, OSError):
            raise os_fault(exc, path) from exc
        raise
    _fsync_dir(path.parent)


def _fsync_dir(folder: Path) -> None:
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def write_bytes(path, data: bytes) -> None:
    """:func:`atomic_write` of ``data``."""
    atomic_write(path, lambda f: f.write(data))


def meta_digest(meta: dict) -> str:
    """SHA-256 of the canonical JSON of a metadata dict."""
    blob = json.dumps(meta, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(blob.encode()).hexdigest()


class _HashingSink:
    """A write-only file object that hashes what passes through it, keeping the bytes
    written after :meth:`keep` is called (the footer) for :func:`write_parquet`.
    """

    def __init__(self, f):
        self.f = f
        self.h = hashlib.sha256()
        self.n = 0
        self.kept: bytearray | None = None
        self.kept_from = 0
        self.closed = False

    def keep(self) -> None:
        self.kept, self.kept_from = bytearray(), self.n

    def write(self, b) -> int:
        b = bytes(b)
        self.h.update(b)
        self.n += len(b)
        if self.kept is not None:
            self.kept += b
        self.f.write(b)
        return len(b)

    def flush(self) -> None:
        self.f.flush()

    def tell(self) -> int:
        return self.n

    def writable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return False

    def close(self) -> None:
        self.closed = True


_HEX = 64
_BLANK = b"0" * _HEX
_LEAD = b'{"file": "'  # how the checksum entry begins, its digest next


def write_parquet(path, table, meta: dict, *, compression: str = "zstd") -> None:
    """Write an Arrow table with its mjlab identity and checksums, atomically.

    The whole-file checksum is written as 64 zeros, the file is hashed as it is
    written, and the digest then replaces the zeros in place (the footer keeps its
    length), so it covers every byte of the file but its own 64.

    Parameters
    ----------
    path : str or Path
    table : pyarrow.Table
    meta : dict
        The identity (JSON-able); stored under :data:`META_KEY`.
    compression : str
        Parquet compression codec.
    """
    import pyarrow.parquet as pq

    blob = json.dumps(meta).encode()
    table = table.replace_schema_metadata({**(table.schema.metadata or {}), META_KEY: blob})
    stored = json.loads(blob)  # what a reader will parse (tuples become lists...)
    sums = json.dumps({"file": _BLANK.decode(), "meta": meta_digest(stored)}).encode()

    def _write(f):
        sink = _HashingSink(f)
        writer = pq.ParquetWriter(sink, table.schema, compression=compression)
        try:
            writer.write_table(table)
            sink.keep()
            writer.add_key_value_metadata({SUM_KEY: sums})
        finally:
            writer.close()
        at = sink.kept.find(sums)
        if at < 0 or sink.kept.find(sums, at + 1) >= 0:
            raise RuntimeError(f"{path}: the checksum entry is not once in the footer")
        at += sink.kept_from + sums.index(_BLANK)
        f.seek(at)
        f.write(sink.h.hexdigest().encode())
        f.seek(0, os.SEEK_END)

    atomic_write(path, _write)


# ----------------------------------------------------------------------------- reading
class NotMjlab(UsageError):
    """A readable Parquet file without mjlab metadata: someone else's file, never damaged
    mjlab output (so it is refused, never removed).
    """


@dataclass
class ParquetMeta:
    """What a mjlab Parquet file's footer says.

    Attributes
    ----------
    path : Path
    meta : dict
        The identity (:data:`META_KEY`).
    sums : dict or None
        The checksums (:data:`SUM_KEY`), None in files written before they existed.
    rows : int
        Rows in the file (the footer's count).
    row_groups : int
    """

    path: Path
    meta: dict
    sums: dict | None
    rows: int
    row_groups: int


def read_meta(path) -> ParquetMeta:
    """The mjlab footer of a Parquet file.

    Raises
    ------
    UsageError
        Naming the file: not a Parquet file (or one cut short), not mjlab output
        (:class:`NotMjlab`), or metadata that is not a JSON object.
    OSError
        The file cannot be read (permission...).
    """
    import pyarrow.parquet as pq

    path = Path(path)
    if not path.is_file():
        raise UsageError(f"{path}: no such file")
    try:
        md = pq.read_metadata(path)
    except OSError as exc:
        if isinstance(exc, PermissionError | IsADirectoryError):
            raise
        raise UsageError(f"{path}: not a Parquet file, or cut short ({_short(exc)})") from None
    except Exception as exc:  # pyarrow raises several types for a non-Parquet file
        raise UsageError(f"{path}: not a Parquet file, or cut short ({_short(exc)})") from None
    kv = md.metadata or {}
    raw = kv.get(META_KEY)
    if raw is None:
        raise NotMjlab(f"{path}: not a mjlab record file (no 'mjlab' metadata)")
    meta = _json_object(raw, path, "'mjlab' metadata")
    sums = None
    if SUM_KEY in kv:
        sums = _json_object(kv[SUM_KEY], path, "checksum entry")
    return ParquetMeta(path, meta, sums, int(md.num_rows), int(md.num_row_groups))


def _short(exc: Exception) -> str:
    text = str(exc).splitlines()[0] if str(exc) else ""
    return f"{type(exc).__name__}: {text[:120]}" if text else type(exc).__name__


def _json_object(raw: bytes, path: Path, what: str) -> dict:
    try:
        out = json.loads(raw)
    except (json.JSONDecodeError, UnicodeDecodeError, RecursionError):
        raise UsageError(f"{path}: its {what} is not JSON (a damaged file?)") from None
    if not isinstance(out, dict):
        raise UsageError(f"{path}: its {what} is not a JSON object (a damaged file?)")
    return out


def verify(pm: ParquetMeta, *, required: bool = True) -> None:
    """Check a file's bytes and identity against its stored checksums.

    Parameters
    ----------
    pm : ParquetMeta
        From :func:`read_meta`.
    required : bool
        Whether a file without a whole-file checksum (one written before mjlab kept
        them) is refused (True) or accepted with what it has: the older checksum of
        its data region and identity, or none (a footer that holds a checksum entry
        under a damaged key is refused either way).

    Raises
    ------
    UsageError
        Naming the file: no checksum (when required) or a mismatch.
    """
    path = pm.path
    if pm.sums is None:
        if required or _footer_holds(path, _LEAD):  # a checksum entry whose key is damaged
            raise UsageError(f"{path}: damaged or from an older mjlab (no checksum)")
        return
    want_f, want_m = pm.sums.get("file"), pm.sums.get("meta")
    if want_f is None and not required and "content" in pm.sums:
        _verify_data_region(pm)
        return
    if want_f is None:
        raise UsageError(f"{path}: damaged or from an older mjlab (no whole-file checksum)")
    if not _is_hex(want_f) or not isinstance(want_m, str):
        raise UsageError(f"{path}: damaged (its checksum entry is malformed)")
    if meta_digest(pm.meta) != want_m:
        raise UsageError(f"{path}: damaged (its metadata does not match its checksum)")
    if file_digest(path) != want_f:
        raise UsageError(f"{path}: damaged (its bytes do not match its checksum)")


def _footer_holds(path, text: bytes) -> bool:
    """Whether the last 16 MiB of a file hold ``text`` (False if it cannot be read)."""
    try:
        with open(path, "rb") as f:
            size = os.fstat(f.fileno()).st_size
            f.seek(max(0, size - (16 << 20)))
            return text in f.read()
    except OSError:
        return False


def _is_hex(x) -> bool:
    return isinstance(x, str) and len(x) == _HEX and all(c in "0123456789abcdef" for c in x)


def file_digest(path) -> str | None:
    """The whole-file SHA-256 of a mjlab Parquet file as :func:`write_parquet` takes it
    (its stored digest read as zeros); None if the file has no single stored digest.

    Raises
    ------
    OSError
        The file cannot be read, naming it.
    """
    path = Path(path)
    try:
        with open(path, "rb") as f:
            size = os.fstat(f.fileno()).st_size
            if size < 12:
                return None
            f.seek(size - 8)
            footer = struct.unpack("<I", f.read(4))[0] + 8
            if footer > size - 4:
                return None
            f.seek(size - footer)
            tail = f.read(footer)
            at = tail.find(_LEAD)
            if at < 0 or tail.find(_LEAD, at + 1) >= 0:
                return None
            at += len(_LEAD)
            start = size - footer + at  # where the stored digest's 64 bytes begin
            h = hashlib.sha256()
            f.seek(0)
            _hash_span(f, h, start)
            h.update(_BLANK)
            f.seek(start + _HEX)
            _hash_span(f, h, size - start - _HEX)
    except OSError as exc:
        raise os_fault(exc, path) from exc
    return h.hexdigest()


def _hash_span(f, h, n: int) -> None:
    while n > 0:
        block = f.read(min(n, 1 << 20))
        if not block:
            return
        h.update(block)
        n -= len(block)


def _verify_data_region(pm: ParquetMeta) -> None:
    """The checks of a file from an older mjlab: its data region and its identity."""
    path = pm.path
    want_c, want_m = pm.sums.get("content"), pm.sums.get("meta")
    if not isinstance(want_c, str) or not isinstance(want_m, str):
        raise UsageError(f"{path}: damaged (its checksum entry is malformed)")
    if meta_digest(pm.meta) != want_m:
        raise UsageError(f"{path}: damaged (its metadata does not match its checksum)")
    try:
        with open(path, "rb") as f:
            size = os.fstat(f.fileno()).st_size
            if size < 12:
                raise UsageError(f"{path}: damaged (cut short)")
            f.seek(size - 8)
            tail = f.read(8)
            end = size - 8 - struct.unpack("<I", tail[:4])[0]
            if tail[4:] != b"PAR1" or end < 4:
                raise UsageError(f"{path}: damaged (its footer is not Parquet)")
            f.seek(0)
            h = hashlib.sha256()
            _hash_span(f, h, end)
    except OSError as exc:
        raise os_fault(exc, path) from exc
    if h.hexdigest() != want_c:
        raise UsageError(f"{path}: damaged (its content does not match its checksum)")


_MARKS = (SUM_KEY, b'"format": "mjlab-records"', b'"format": "mjlab-summary"')
"""Byte strings every mjlab file's footer holds: a file too damaged to read still holds
some, where someone else's file holds none."""


def damaged_output(path, exc: UsageError) -> bool:
    """Whether a file that :func:`read_meta` refused with ``exc`` is damaged mjlab output.

    It is if it shows mjlab's marks (:data:`_MARKS`) in its last 16 MiB or, when it is
    not readable Parquet at all (a file cut short), if it starts as Parquet does. A
    readable Parquet file without any mark, or any other file, is someone else's.
    """
    if any(_footer_holds(path, mark) for mark in _MARKS):
        return True
    try:
        with open(path, "rb") as f:
            head = f.read(4)
    except OSError:
        return False
    return not isinstance(exc, NotMjlab) and head == b"PAR1"


def meta_intact(pm: ParquetMeta) -> bool:
    """Whether a file's identity matches its own checksum (True for a file without one).

    A file whose identity differs from a run's is another run's only if this holds;
    otherwise its identity is damaged.
    """
    return pm.sums is None or pm.sums.get("meta") == meta_digest(pm.meta)


# ----------------------------------------------------------------------------- staging
@contextlib.contextmanager
def staged_folder(out):
    """Write a folder's new files all or nothing.

    Yields a hidden folder inside ``out`` (``out`` is created if missing; its parent
    must exist) to write into; when the block ends normally its files are moved into
    ``out`` (subfolders merged, files of the same name replaced), and when it fails the
    hidden folder is removed, and ``out`` too if this call created it and it is empty,
    so a full disk leaves no partial output. Staging folders of dead runs are removed.
    """
    import shutil

    out = Path(out)
    created = not out.exists()
    try:
        out.mkdir(exist_ok=True)
    except OSError as exc:
        raise os_fault(exc, out) from exc
    stage = _temp_name(out / "staging")
    try:
        remove_dead_temps(out)
        stage.mkdir(mode=0o777)
        yield stage
        _merge(stage, out)
    except BaseException:
        shutil.rmtree(stage, ignore_errors=True)
        if created:
            try:
                out.rmdir()
            except OSError:
                pass
        raise
    shutil.rmtree(stage, ignore_errors=True)


def _merge(src: Path, dst: Path) -> None:
    for entry in sorted(src.iterdir()):
        target = dst / entry.name
        if entry.is_dir() and not entry.is_symlink():
            try:
                target.mkdir(exist_ok=True)
            except FileExistsError:
                raise UsageError(f"{target}: exists and is not a folder") from None
            except OSError as exc:
                raise os_fault(exc, target) from exc
            _merge(entry, target)
        else:
            try:
                os.replace(entry, target)
            except OSError as exc:
                raise os_fault(exc, target) from exc


# ----------------------------------------------------------------------------- processes
def _alive(pid: int) -> bool:
    """Whether process ``pid`` runs on this host (a zombie counts as gone)."""
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    except OverflowError:
        return False
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            state = f.read().rsplit(b")", 1)[1].split()[0]
        return state not in (b"Z", b"X")
    except (OSError, IndexError):
        return True


def remove_dead_temps(folder) -> list[Path]:
    """Remove the temporary files in ``folder`` whose writer (on this host) is gone.

    Temporary files of a live process, or of another host, are never touched.
    Returns the removed paths.
    """
    removed = []
    for f in Path(folder).iterdir():
        m = _TEMP.match(f.name)
        if m is None or m.group("host") != _HOST or _alive(int(m.group("pid"))):
            continue
        try:
            if f.is_dir() and not f.is_symlink():
                import shutil

                shutil.rmtree(f)
            else:
                f.unlink()
            removed.append(f)
        except FileNotFoundError:
            pass
    return removed


# ----------------------------------------------------------------------------- locks
class OutputLock:
    """The lock of one output (a folder or a file) for the life of a run.

    Parameters
    ----------
    target : str or Path
        The output. A folder's lock is ``DIR/.mjlab.lock`` (the folder must exist); a
        file's is ``.NAME.lock`` beside it.
    run : str
        What the run is (shown to a second writer).

    Notes
    -----
    A lock file exists with its whole content or not at all: it is written and fsynced
    under a temporary name, ``flock``-ed, and then hard-linked to the lock's name (which
    fails if that name exists, whatever it is). The ``flock`` is held while the holder
    lives and the kernel drops it when the holder dies, however it dies, which is how a
    stale lock is told from a live one on this host. A stale lock, or one left empty or
    unreadable (by a run that could not finish writing it), is taken over with a
    one-line message, by renaming a new lock file over it. A lock of another host is never
    taken over (its process cannot be checked from here). The lock's name is never
    followed through a symbolic link: such a link, or a lock that is not a regular file,
    is refused. Every message names the lock's path.
    """

    def __init__(self, target, run: str):
        target = Path(target)
        self.target = target
        self.run = run
        self.path = (
            target / ".mjlab.lock" if target.is_dir() else target.with_name(f".{target.name}.lock")
        )
        self.fd: int | None = None

    def _content(self) -> bytes:
        return (
            json.dumps(
                {
                    "host": _HOST,
                    "pid": os.getpid(),
                    "run": self.run,
                    "since": time.strftime("%Y-%m-%d %H:%M:%S"),
                }
            ).encode()
            + b"\n"
        )

    def _holder(self, fd: int) -> dict:
        try:
            os.lseek(fd, 0, os.SEEK_SET)
            raw = os.read(fd, 65536)
            out = json.loads(raw) if raw.strip() else {}
        except (OSError, ValueError, RecursionError):
            out = {}
        return out if isinstance(out, dict) else {}

    def _refuse(self, holder: dict, why: str) -> UsageError:
        who = f"pid {str(holder.get('pid', '?'))[:20]} on {str(holder.get('host', '?'))[:80]}"
        run = f" ({str(holder['run'])[:200]})" if holder.get("run") else ""
        since = f" since {str(holder['since'])[:40]}" if holder.get("since") else ""
        return UsageError(f"{self.target}: {why} {who}{run}{since}; lock {self.path}")

    def _fault(self, exc: OSError) -> OSError:
        return os_fault(exc, self.path)

    def _prepared(self) -> tuple[int, Path]:
        """A new lock file under a temporary name: its content written and fsynced, and
        flock-ed (nobody else can have it yet). Removed again if anything fails.
        """
        tmp = _temp_name(self.path)
        try:
            fd = os.open(tmp, os.O_RDWR | os.O_CREAT | os.O_EXCL | _NOFOLLOW, 0o644)
        except OSError as exc:
            raise self._fault(exc) from exc
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            data = self._content()
            if os.write(fd, data) != len(data):
                raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
            os.fsync(fd)
        except BaseException as exc:
            os.close(fd)
            _unlink_quietly(tmp)
            if isinstance(exc, OSError):
                raise self._fault(exc) from exc
            raise
        return fd, tmp

    def _create(self) -> int | None:
        """The lock, created whole and held; None if its name exists already."""
        fd, tmp = self._prepared()
        try:
            os.link(tmp, self.path, follow_symlinks=False)
        except FileExistsError:
            os.close(fd)
            return None
        except OSError as exc:
            if exc.errno not in _NO_LINKS:
                os.close(fd)
                raise self._fault(exc) from exc
            os.close(fd)
            return self._create_in_place()
        finally:
            _unlink_quietly(tmp)
        return fd

    def _create_in_place(self) -> int | None:
        """:meth:`_create` on a file system without hard links: created, held, then written;
        removed again if it cannot be written whole.
        """
        try:
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_EXCL | _NOFOLLOW, 0o644)
        except FileExistsError:
            return None
        except OSError as exc:
            raise self._fault(exc) from exc
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            if not _same_file(fd, self.path):  # taken over in the instant before the flock
                os.close(fd)
                return None
            data = self._content()
            if os.write(fd, data) != len(data):
                raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
            os.fsync(fd)
        except BaseException as exc:
            if _same_file(fd, self.path):
                _unlink_quietly(self.path)
            os.close(fd)
            if isinstance(exc, OSError):
                raise self._fault(exc) from exc
            raise
        return fd

    def _open_existing(self) -> int | None:
        """The existing lock file, opened without following a link; None if it is gone."""
        try:
            fd = os.open(self.path, os.O_RDONLY | _NOFOLLOW | os.O_NONBLOCK)
        except FileNotFoundError:
            return None
        except OSError as exc:
            if exc.errno == errno.ELOOP or os.path.islink(self.path):
                raise UsageError(
                    f"{self.target}: its lock {self.path} is a symbolic link; refused (mjlab "
                    "never follows one: remove it if no run is writing this output)"
                ) from None
            raise self._fault(exc) from exc
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            os.close(fd)
            raise UsageError(
                f"{self.target}: its lock {self.path} is not a regular file; refused "
                "(remove it if no run is writing this output)"
            )
        return fd

    def _take_over(self, old: int, holder: dict) -> int:
        """Replace a stale lock (its flock held on ``old``) by a new one of this run."""
        if holder:
            print(
                f"mjlab: taking over the stale lock {self.path} of pid "
                f"{str(holder.get('pid', '?'))[:20]} (that process is gone)",
                file=sys.stderr,
            )
        else:
            print(
                f"mjlab: taking over the empty or unreadable lock {self.path} (its writer is gone)",
                file=sys.stderr,
            )
        fd, tmp = self._prepared()
        try:
            os.replace(tmp, self.path)
        except BaseException as exc:
            os.close(fd)
            _unlink_quietly(tmp)
            if isinstance(exc, OSError):
                raise self._fault(exc) from exc
            raise
        finally:
            os.close(old)
        return fd

    def acquire(self) -> OutputLock:
        """Take the lock (UsageError naming the holder if another run has it)."""
        unnamed = 0
        for _ in range(200):
            fd = self._create()
            if fd is None:
                old = self._open_existing()
                if old is None:
                    continue  # released meanwhile: try to create it again
                try:
                    fcntl.flock(old, fcntl.LOCK_EX | fcntl.LOCK_NB)
                except BlockingIOError:
                    holder = self._holder(old)
                    os.close(old)
                    if holder:
                        raise self._refuse(holder, "another run is writing it:") from None
                    unnamed += 1  # held, but names no one (an older mjlab writing it now)
                    if unnamed >= 100:
                        raise UsageError(
                            f"{self.target}: another run holds its lock {self.path}, which "
                            "names no run"
                        ) from None
                    time.sleep(0.01)
                    continue
                except OSError as exc:
                    os.close(old)
                    raise self._fault(exc) from exc
                if not _same_file(old, self.path):  # released (and maybe re-made) meanwhile
                    os.close(old)
                    continue
                holder = self._holder(old)
                if holder and holder.get("host") != _HOST:
                    os.close(old)
                    raise self._refuse(
                        holder, "locked by a run on another host (delete the lock if it is over):"
                    )
                fd = self._take_over(old, holder)
            self.fd = fd
            atexit.register(self.release)
            return self
        raise UsageError(f"{self.target}: cannot take the lock {self.path} (it keeps changing)")

    def release(self) -> None:
        """Drop the lock (idempotent)."""
        if self.fd is None:
            return
        fd, self.fd = self.fd, None
        if _same_file(fd, self.path):
            _unlink_quietly(self.path)
        os.close(fd)
        atexit.unregister(self.release)

    def __enter__(self) -> OutputLock:
        return self.acquire()

    def __exit__(self, *exc) -> None:
        self.release()


_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_NO_LINKS = {errno.EPERM, errno.ENOTSUP, errno.EOPNOTSUPP, errno.ENOSYS, errno.EMLINK}
"""What link() says on a file system without hard links (FAT, some network shares)."""


def _same_file(fd: int, path: Path) -> bool:
    """Whether ``path`` itself (not what a link there points to) is the file open as ``fd``."""
    try:
        a, b = os.fstat(fd), os.lstat(path)
    except OSError:
        return False
    return (a.st_dev, a.st_ino) == (b.st_dev, b.st_ino)


def _unlink_quietly(path) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass


def print_json(obj) -> None:
    """Print ``obj`` as JSON (UTF-8, no ASCII escapes)."""
    json.dump(obj, sys.stdout, ensure_ascii=False, indent=2)
    sys.stdout.write("\n")
