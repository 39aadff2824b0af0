"""Atomic file writing shared by the format layers (URDF, trajectories).

:func:`write_atomic` puts the bytes in a temporary file in the target's own folder (same file
system, so the final rename is atomic), flushes and fsyncs it, gives it the mode of the file it
replaces (if any), then ``os.replace``-s it over the target. On any failure the temporary file is
removed and an existing target is left untouched; OS failures re-raise as the same OSError
subclass (errno kept) with a message naming the target: ``cannot write URDF 'arm.urdf': ...``.
A symbolic link stays a link: the file it names is replaced, atomically.

A write that never finished (Blender or the machine stopped between the temporary file and the
rename) leaves its temporary file, ``.<name>.<12 hex digits>.tmp``. The next write of the same
target removes those last written more than :data:`STALE_S` ago (issue 35): a write takes one
``write`` and an ``fsync``, well under that, so a younger one may be another process's write
in progress and is left alone.
"""

from __future__ import annotations

import os
import re
import secrets
import stat
import time
from typing import Union

__all__ = ["STALE_S", "write_atomic"]

#: Seconds after its last write that a temporary file of the target is an interrupted
#: write's leftover (see the module doc).
STALE_S = 60.0
_TOKEN = re.compile(r"[0-9a-f]{12}")


def write_atomic(path: Union[str, os.PathLike], data: bytes, what: str = "file") -> None:
    """Write ``data`` to ``path`` atomically; ``what`` names the content in error messages."""
    path = os.fspath(path)
    target = os.path.realpath(path)  # a symbolic link is written through to what it names
    folder = os.path.dirname(target)
    _remove_stale(folder, os.path.basename(target))
    tmp = os.path.join(folder, f".{os.path.basename(target)}.{secrets.token_hex(6)}.tmp")
    try:
        try:
            mode = stat.S_IMODE(os.stat(target).st_mode)
        except OSError:
            mode = None
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)  # 0o666 & ~umask, like open()
    except OSError as e:
        raise _write_error(e, path, what) from e
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        if mode is not None:
            os.chmod(tmp, mode)
        os.replace(tmp, target)
    except BaseException as e:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        if isinstance(e, OSError):
            raise _write_error(e, path, what) from e
        raise


def _remove_stale(folder: str, name: str) -> None:
    """Remove the temporary files of target ``name`` in ``folder`` left by writes that were
    interrupted (last written over :data:`STALE_S` ago); what cannot be removed stays."""
    prefix, now = f".{name}.", time.time()
    try:
        entries = os.scandir(folder)
    except OSError:
        return
    with entries:
        for e in entries:
            n = e.name
            if not (n.startswith(prefix) and n.endswith(".tmp")
                    and _TOKEN.fullmatch(n, len(prefix), len(n) - 4)):
                continue
            try:
                if e.is_file(follow_symlinks=False) and \
                        now - e.stat(follow_symlinks=False).st_mtime > STALE_S:
                    os.unlink(e.path)
            except OSError:
                pass


def _write_error(e: OSError, path: str, what: str) -> OSError:
    if e.errno is None:
        return type(e)(f"cannot write {what} '{path}': {e}")
    return type(e)(e.errno, f"cannot write {what} '{path}': {e.strerror}")
