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
- ``mjlab.sha256``: ``{"content": ..., "meta": ..., "data_bytes": ...}``, the SHA-256 of
  the file's data region (every byte before the footer, hashed while it is written)
  and of the canonical JSON of the identity. :func:`verify` recomputes both, so a
  flipped byte anywhere in the data or in the identity is found without decoding.

:class:`OutputLock` is the lock of one output (a folder or a file): a lock file created
with ``O_CREAT | O_EXCL`` holding the host, pid and run, kept under an ``flock`` for
the life of the holder. A second writer is refused (:class:`~engine.errors.UsageError`
naming the holder); a lock left by a process that is gone (``kill -9``) is taken over
with a one-line message.
"""

from __future__ import annotations

import atexit
import fcntl
import hashlib
import json
import os
import re
import secrets
import socket
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
    "check_writable",
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
    """A write-only file object that hashes what passes through it."""

    def __init__(self, f):
        self.f = f
        self.h = hashlib.sha256()
        self.n = 0
        self.tail = b""
        self.closed = False

    def write(self, b) -> int:
        b = bytes(b)
        self.h.update(b)
        self.n += len(b)
        self.tail = (self.tail + b[-8:])[-8:]
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


def write_parquet(path, table, meta: dict, *, compression: str = "zstd") -> None:
    """Write an Arrow table with its mjlab identity and checksums, atomically.

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

    def _write(f):
        sink = _HashingSink(f)
        writer = pq.ParquetWriter(sink, table.schema, compression=compression)
        sums = {}
        try:
            writer.write_table(table)
            sums = {
                "content": sink.h.hexdigest(),
                "meta": meta_digest(stored),
                "data_bytes": sink.n,
            }
            writer.add_key_value_metadata({SUM_KEY: json.dumps(sums).encode()})
        finally:
            writer.close()
        footer = struct.unpack("<I", sink.tail[:4])[0] if len(sink.tail) == 8 else -1
        if sink.tail[4:] != b"PAR1" or sink.n - 8 - footer != sums["data_bytes"]:
            raise RuntimeError(f"{path}: the Parquet writer wrote data after the checksum")

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
    """Check a file's data region and identity against its stored checksums.

    Parameters
    ----------
    pm : ParquetMeta
        From :func:`read_meta`.
    required : bool
        Whether a file without checksums is refused (True) or accepted unchecked.

    Raises
    ------
    UsageError
        Naming the file: no checksums (when required) or a mismatch.
    """
    path = pm.path
    if pm.sums is None:
        if required:
            raise UsageError(f"{path}: damaged or from an older mjlab (no checksum)")
        return
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
            left = end
            while left > 0:
                block = f.read(min(left, 1 << 20))
                if not block:
                    break
                h.update(block)
                left -= len(block)
    except OSError as exc:
        raise os_fault(exc, path) from exc
    if left or h.hexdigest() != want_c:
        raise UsageError(f"{path}: damaged (its content does not match its checksum)")


def meta_intact(pm: ParquetMeta) -> bool:
    """Whether a file's identity matches its own checksum (True for a file without one).

    A file whose identity differs from a run's is another run's only if this holds;
    otherwise its identity is damaged.
    """
    return pm.sums is None or pm.sums.get("meta") == meta_digest(pm.meta)


# ----------------------------------------------------------------------------- checks
def check_writable(folder, what: str) -> None:
    """UsageError unless ``folder`` (or its nearest existing parent) is a writable folder.

    Nothing is left behind: the probe file is created and removed. Root passes
    ``os.access`` on a read-only folder, so the probe really creates a file.
    """
    folder = Path(folder)
    probe = folder
    while not probe.exists():
        if probe.parent == probe:
            break
        probe = probe.parent
    if not probe.is_dir():
        where = "exists and is not a folder" if probe == folder else f"{probe} is not a folder"
        raise UsageError(f"{what} {folder}: {where}")
    name = probe / f".mjlab-probe~{_HOST}~{os.getpid()}~{secrets.token_hex(4)}.tmp"
    try:
        fd = os.open(name, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except OSError as exc:
        raise UsageError(
            f"{what} {folder}: folder {probe} is not writable ({exc.strerror})"
        ) from None
    os.close(fd)
    os.unlink(name)


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
    The lock file is created with ``O_CREAT | O_EXCL`` and held under ``flock`` while
    the holder lives; the kernel drops the ``flock`` when the holder dies, however it
    dies, which is how a stale lock is told from a live one on this host. A lock of
    another host is never taken over (its process cannot be checked from here).
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
        except (OSError, ValueError):
            out = {}
        return out if isinstance(out, dict) else {}

    def _refuse(self, holder: dict, why: str) -> UsageError:
        who = f"pid {holder.get('pid', '?')} on {holder.get('host', '?')}"
        run = f" ({holder['run']})" if holder.get("run") else ""
        since = f" since {holder['since']}" if holder.get("since") else ""
        return UsageError(f"{self.target}: {why} {who}{run}{since}; lock {self.path}")

    def acquire(self) -> OutputLock:
        """Take the lock (UsageError naming the holder if another run has it)."""
        for _ in range(200):
            try:
                fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o644)
                created = True
            except FileExistsError:
                try:
                    fd = os.open(self.path, os.O_RDWR)
                except FileNotFoundError:
                    continue  # released meanwhile: try to create it again
                created = False
            except OSError as exc:
                raise os_fault(exc, self.path) from exc
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | (0 if created else fcntl.LOCK_NB))
            except BlockingIOError:
                holder = self._holder(fd)
                os.close(fd)
                if not holder:  # its creator is still writing it
                    time.sleep(0.01)
                    continue
                raise self._refuse(holder, "another run is writing it:") from None
            try:
                same = os.fstat(fd).st_ino == os.stat(self.path).st_ino
            except FileNotFoundError:
                same = False
            if not same:  # released (and maybe re-created) while we waited
                os.close(fd)
                continue
            holder = self._holder(fd)
            if not created:
                if not holder:  # created this instant; its creator will take the flock
                    os.close(fd)
                    time.sleep(0.01)
                    continue
                if holder.get("host") != _HOST:
                    os.close(fd)
                    raise self._refuse(
                        holder, "locked by a run on another host (delete the lock if it is over):"
                    )
                print(
                    f"mjlab: taking over the stale lock {self.path} of pid "
                    f"{holder.get('pid', '?')} (that process is gone)",
                    file=sys.stderr,
                )
            os.ftruncate(fd, 0)
            os.lseek(fd, 0, os.SEEK_SET)
            os.write(fd, self._content())
            os.fsync(fd)
            self.fd = fd
            atexit.register(self.release)
            return self
        raise UsageError(f"{self.target}: cannot take the lock {self.path} (it keeps changing)")

    def release(self) -> None:
        """Drop the lock (idempotent)."""
        if self.fd is None:
            return
        fd, self.fd = self.fd, None
        try:
            if os.fstat(fd).st_ino == os.stat(self.path).st_ino:
                os.unlink(self.path)
        except OSError:
            pass
        os.close(fd)
        atexit.unregister(self.release)

    def __enter__(self) -> OutputLock:
        return self.acquire()

    def __exit__(self, *exc) -> None:
        self.release()


def print_json(obj) -> None:
    """Print ``obj`` as JSON (UTF-8, no ASCII escapes)."""
    json.dump(obj, sys.stdout, ensure_ascii=False, indent=2)
    sys.stdout.write("\n")
