"""Paths checked before anything is written, and input files read safely.

:func:`check_output` checks an output path (``--out``, ``--plot``) before any file is
made: a bad path is a :class:`~engine.errors.UsageError` naming it (exit 2), a folder
that cannot be written an ``OSError`` naming it (exit 1). :func:`read_input` reads an
input file (``--rules``, ``--bot-params``) after checking that it is a regular file of a
bounded size, so a FIFO or a device is never opened and nothing hangs or reads for ever.
"""

from __future__ import annotations

import errno
import os
import secrets
import socket
import stat
from pathlib import Path

from .errors import UsageError
from .fileio import os_fault

__all__ = ["check_input", "check_output", "check_writable", "read_input"]

_HOST = socket.gethostname()
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)


def check_writable(folder, what: str) -> None:
    """Check that files can be created in the existing folder ``folder``.

    Nothing is left behind: the probe file is created and removed. Root passes
    ``os.access`` on a read-only folder, so the probe really creates a file.

    Raises
    ------
    OSError
        An environment fault (exit 1), naming ``what`` and the folder: permission
        denied, a read-only file system, no space or inodes left.
    UsageError
        A folder where no file can be made at all (``/proc``), naming it (exit 2).
    """
    folder = Path(folder)
    name = folder / f".mjlab-probe~{_HOST}~{os.getpid()}~{secrets.token_hex(4)}.tmp"
    try:
        fd = os.open(name, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW, 0o600)
    except OSError as exc:
        cause = exc.strerror or type(exc).__name__
        if exc.errno not in _ENVIRONMENT:  # e.g. /proc: no file can be made there at all
            raise UsageError(
                f"{what}: folder {folder} is not writable (no file can be made there: {cause})"
            ) from None
        raise OSError(exc.errno, f"cannot write in folder {folder} ({cause})", what) from None
    os.close(fd)
    os.unlink(name)


_ENVIRONMENT = {
    errno.EACCES, errno.EPERM, errno.EROFS, errno.ENOSPC, errno.EDQUOT, errno.EIO, errno.EMFILE,
    errno.ENFILE, errno.ENOMEM,
}  # fmt: skip
"""What a failing probe says of the environment (exit 1), not of the path given (exit 2)."""


_RESERVE = len(f"..lock~{_HOST}~{2**32}~{'0' * 8}.tmp".encode())
"""Bytes mjlab adds to an output file's name for its temporary and lock files."""


def _limit(folder: Path, name: str, default: int) -> int:
    try:
        return int(os.pathconf(folder, name))
    except (OSError, ValueError, TypeError):
        return default


def _abridged(text: str, n: int = 60) -> str:
    return text if len(text) <= n else f"{text[: n // 2]}...{text[-n // 3 :]}"


def _kind(mode: int) -> str:
    for test, word in (
        (stat.S_ISFIFO, "a FIFO"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
        (stat.S_ISSOCK, "a socket"),
        (stat.S_ISDIR, "a folder"),
        (stat.S_ISREG, "a file"),
    ):
        if test(mode):
            return word
    return "not a regular file"


def _exists(path: Path) -> bool:
    """Whether ``path`` exists (False for a name too long to look up)."""
    try:
        os.stat(path)
    except (OSError, ValueError):
        return False
    return True


def check_output(path, what: str, *, folder: bool = False) -> Path:
    """Check an output path before anything is written, and return it as a Path.

    Parameters
    ----------
    path : str or Path
        The output, as given (``--out``, ``--plot``).
    what : str
        The option's name, for messages.
    folder : bool
        Whether the output is a folder (created if missing) rather than a file.

    Raises
    ------
    UsageError
        Bad input (exit 2), naming the path: an empty name; the root folder (what
        ``"$UNSET/"`` becomes); a name or a path longer than the file system takes
        (a file's name with room for mjlab's temporary and lock names beside it); a
        missing parent folder, or a parent that is not a folder; an existing output of
        the wrong kind (a folder for a file, a file for a folder, a FIFO, a device or a
        socket: mjlab writes only regular files and folders).
    OSError
        An environment fault (exit 1): the folder cannot be written (permission, a
        read-only file system).
    """
    raw = os.fspath(path)
    noun = "folder" if folder else "file"
    if not raw.strip():
        raise UsageError(f"{what} is empty: give a {noun} name")
    if "\0" in raw:
        raise UsageError(f"{what} {raw!r}: a name cannot hold a NUL character")
    absolute = Path(os.path.abspath(raw))
    if absolute == Path(absolute.anchor) or Path(os.path.realpath(raw)) == Path("/"):
        raise UsageError(
            f'{what} {raw!r} is the root folder (an unset variable, as in "$UNSET/"?); '
            f"give a {noun} below it"
        )
    parent = absolute.parent
    near = parent
    while not _exists(near) and near != near.parent:
        near = near.parent
    size = len(os.fsencode(raw))
    path_max = _limit(near, "PC_PATH_MAX", 4096)
    if size >= path_max or len(os.fsencode(str(absolute))) >= path_max:
        raise UsageError(
            f"{what} {_abridged(raw)}: the path is {size:,} bytes long; this file system takes "
            f"at most {path_max - 1:,}"
        )
    name_max = _limit(near, "PC_NAME_MAX", 255)
    for part in absolute.parts:
        if len(os.fsencode(part)) > name_max:
            raise UsageError(
                f"{what} {_abridged(raw)}: the name {_abridged(part, 40)} is "
                f"{len(os.fsencode(part)):,} bytes long; this file system takes at most "
                f"{name_max}"
            )
    own = len(os.fsencode(absolute.name))
    if not folder and own + _RESERVE > name_max:
        raise UsageError(
            f"{what} {_abridged(raw)}: the file name is {own:,} bytes long; give at most "
            f"{name_max - _RESERVE} (mjlab's temporary and lock names beside it add {_RESERVE})"
        )
    if not parent.is_dir():
        missing = parent
        while not missing.parent.exists():
            missing = missing.parent
        above = missing.parent if not missing.exists() else missing
        where = (
            f"{above} is not a folder" if above.exists() and not above.is_dir()
            else f"folder {missing} does not exist"
        )  # fmt: skip
        raise UsageError(f"{what} {raw}: {where} (mjlab creates no parent folders)")
    try:
        mode = os.stat(absolute).st_mode
    except FileNotFoundError:
        mode = None
    if mode is not None:
        if folder and not stat.S_ISDIR(mode):
            raise UsageError(f"{what} {raw}: exists and is not a folder ({_kind(mode)})")
        if not folder and not stat.S_ISREG(mode):
            raise UsageError(
                f"{what} {raw}: exists and is {_kind(mode)}, not a regular file; give a file name"
            )
    check_writable(absolute if folder and mode is not None else parent, f"{what} {raw}")
    return Path(raw)


def check_input(path, what: str, *, folder_ok: bool = False) -> os.stat_result:
    """The ``stat`` of an input path, checked before it is opened.

    Raises
    ------
    UsageError
        Bad input (exit 2) naming the path: an empty name, a name too long, no such
        file, a folder (unless ``folder_ok``), anything but a regular file or a folder
        (a FIFO or a device is never opened).
    OSError
        The path cannot be looked up (permission), naming it (exit 1).
    """
    raw = os.fspath(path)
    if not raw.strip():
        raise UsageError(f"{what} is empty: give a file name")
    if "\0" in raw:
        raise UsageError(f"{what} {raw!r}: a name cannot hold a NUL character")
    try:
        st = os.stat(raw)
    except (FileNotFoundError, NotADirectoryError):
        missing = "no such file or folder" if folder_ok else "no such file"
        raise UsageError(f"{what} {_abridged(raw)}: {missing}") from None
    except OSError as exc:
        if exc.errno == errno.ENAMETOOLONG:
            raise UsageError(f"{what} {_abridged(raw)}: the name is too long") from None
        raise os_fault(exc, raw) from exc
    if stat.S_ISREG(st.st_mode) or (folder_ok and stat.S_ISDIR(st.st_mode)):
        return st
    kinds = "a regular file or a folder" if folder_ok else "a regular file"
    raise UsageError(f"{what} {raw}: is {_kind(st.st_mode)}, not {kinds}")


def read_input(path, what: str, limit: int) -> bytes:
    """The bytes of an input file, checked before it is opened.

    Parameters
    ----------
    path : str or Path
    what : str
        The option's name, for messages (``--rules``, ``--bot-params``).
    limit : int
        The most bytes the file may hold.

    Raises
    ------
    UsageError
        Bad input (exit 2) naming the path: an empty name, no such file, a folder,
        anything but a regular file (a FIFO or a device is never opened, so nothing
        hangs or reads for ever), or a file larger than ``limit``.
    OSError
        The file cannot be read (permission), naming it (exit 1).
    """
    raw = os.fspath(path)
    check_input(raw, what)
    try:
        fd = os.open(raw, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0))
    except OSError as exc:
        raise os_fault(exc, raw) from exc
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):  # swapped since the check above
            raise UsageError(f"{what} {raw}: is {_kind(st.st_mode)}, not a regular file")
        if st.st_size > limit:
            raise UsageError(
                f"{what} {raw}: is {st.st_size:,} bytes; a {what} file holds at most {limit:,}"
            )
        with os.fdopen(fd, "rb", closefd=False) as f:
            data = f.read(limit + 1)
    except OSError as exc:
        raise os_fault(exc, raw) from exc
    finally:
        os.close(fd)
    if len(data) > limit:
        raise UsageError(f"{what} {raw}: holds more than {limit:,} bytes")
    return data
