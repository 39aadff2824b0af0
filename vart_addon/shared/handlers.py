"""Adding and removing ``bpy.app.handlers`` functions once, across module reloads."""
from __future__ import annotations


def remove(handlers, fn) -> None:
    """Remove ``fn`` and any earlier copy of it (same module and name: a reloaded module)
    from ``handlers`` (a ``bpy.app.handlers`` list)."""
    for old in [x for x in handlers if getattr(x, "__name__", None) == fn.__name__
                and getattr(x, "__module__", None) == fn.__module__]:
        handlers.remove(old)


def add(handlers, fn, first: bool = False) -> None:
    """Add ``fn`` to ``handlers`` once (an earlier copy is removed first); ``first``: run it
    before the others."""
    remove(handlers, fn)
    if first:
        handlers.insert(0, fn)
    else:
        handlers.append(fn)
