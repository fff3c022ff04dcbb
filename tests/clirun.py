"""Shared support of the command-line tests: run ``mjlab`` in-process, judge its error
line, fill a small disk."""

from __future__ import annotations

import os
from pathlib import Path

from mjlab.cli import main


def run(capsys, *argv):
    """``mjlab ARGV`` in this process: (exit code, stdout, stderr)."""
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def one_line(err: str) -> bool:
    """Whether ``err`` is one line and no traceback (the contract of every refusal)."""
    return err.count("\n") == 1 and "Traceback" not in err


def fill(folder: Path) -> Path:
    """Fill the file system of ``folder`` to the last byte; returns the filler file."""
    filler = Path(folder) / "filler"
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
