"""Exceptions of the scene bridge. Both derive from ValueError, like the solver's VartError."""
from __future__ import annotations


class BridgeError(ValueError):
    """The scene cannot be read, solved or written; the message says why. Nothing was changed."""


class SchemaError(BridgeError):
    """A link or joint property is missing, of the wrong type or size, non-finite or inconsistent.

    The message names the object and the key path, e.g.
    ``object 'Leg.001': ["vart"]["joints"]["knee"]["q"]: expected 1 float, got 2``.
    ``obj`` and ``path`` hold the two parts (``path`` is a tuple of keys below the object).
    ``kind`` names what ``obj`` is: "object", or "collection" (a sublinkage's properties).
    """

    def __init__(self, obj: str | None, path: tuple = (), problem: str = "",
                 kind: str = "object"):
        self.obj, self.path, self.problem = obj, tuple(path), problem
        where = "".join(f"[{k!r}]".replace("'", '"') for k in self.path)
        head = f"{kind} {obj!r}" if obj is not None else "scene"
        super().__init__(f"{head}: {where}: {problem}" if where else f"{head}: {problem}")
