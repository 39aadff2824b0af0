"""Values and parse errors as text, the same under numpy 1 and 2 and Python 3.11 and 3.13.

Every message vart shows a user, and every number it turns into text and back, goes through
here instead of ``repr``: numpy 2 writes a scalar's repr as ``np.float64(0.5)`` where numpy 1
wrote ``0.5``, and Python 3.13 reports a JSON trailing comma differently from 3.11.
"""
from __future__ import annotations

import json
import math
import numbers
import re

import numpy as np


class _Elided:
    """What :func:`show` writes for lists and objects nested deeper than it shows."""

    def __repr__(self) -> str:
        return "..."


_ELIDED = _Elided()
#: How deep :func:`show` writes nested lists and dicts (a bad value in a file may be nested
#: as deep as the JSON reader allows: Python's recursion would run out writing it).
SHOW_DEPTH = 8
#: How deep the JSON documents vart reads may nest before :func:`load_json` refuses them.
JSON_DEPTH = 500


def plain(value, depth: int | None = None):
    """``value`` with numpy scalars turned into the Python ``bool``, ``int`` or ``float`` of the
    same value, and numpy arrays, tuples and lists into lists of those (recursively; lists
    and dicts below ``depth`` levels, when given, become ``...``)."""
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return value
    if hasattr(value, "tolist") and hasattr(value, "dtype"):  # numpy array or scalar
        return value.tolist()
    if isinstance(value, (list, tuple, dict)):
        if depth is not None and depth <= 0:
            return _ELIDED
        deeper = None if depth is None else depth - 1
        if isinstance(value, dict):
            return {k: plain(v, deeper) for k, v in value.items()}
        return [plain(v, deeper) for v in value]
    if isinstance(value, numbers.Integral):
        return int(value)
    if isinstance(value, numbers.Real):
        return float(value)
    return value


def show(value) -> str:
    """``value`` as a message shows it: strings quoted (``'knee'``), numbers as Python writes
    them (``0.5``, ``nan``, ``1e+39``), sequences as lists; numpy's types never named; lists
    and objects nested deeper than :data:`SHOW_DEPTH` as ``...``."""
    return repr(plain(value, SHOW_DEPTH))


def load_json(text: str, **kw):
    """``json.loads(text, **kw)``; a document nested too deeply for Python's JSON reader (it
    raises RecursionError, at about 1000 levels) raises ``json.JSONDecodeError`` instead, at
    the place where its arrays and objects first nest :data:`JSON_DEPTH` deep, so readers
    report it as any other JSON error (:func:`json_error`)."""
    try:
        return json.loads(text, **kw)
    except RecursionError:
        raise json.JSONDecodeError(f"arrays and objects nested more than {JSON_DEPTH} deep",
                                   text, _depth_exceeded(text, JSON_DEPTH)) from None


def _depth_exceeded(text: str, depth: int) -> int:
    """The index in JSON ``text`` where arrays and objects first nest more than ``depth``
    deep (0 if they never do), strings not counted."""
    blank = re.sub(r'"(?:[^"\\]|\\.)*"', lambda m: " " * len(m.group()), text)
    code = np.frombuffer(blank.encode("utf-32-le"), dtype=np.uint32)  # one per character
    step = (np.isin(code, (ord("["), ord("{"))).astype(np.int64)
            - np.isin(code, (ord("]"), ord("}"))))
    over = np.flatnonzero(np.cumsum(step) > depth)
    return int(over[0]) if over.size else 0


def float32_text(value: float) -> str:
    """The shortest decimal that reads back as the same single-precision float as ``value``
    (``0.2`` for float32(0.2), not ``0.20000000298023224``); ``inf``, ``-inf``, ``nan``."""
    x = float(value)
    if not math.isfinite(x):
        return repr(x)
    # numpy's shortest round trip for float32 (Dragon4), not its repr
    return np.format_float_positional(np.float32(x), unique=True, trim="-") if abs(x) < 1e16 \
        else np.format_float_scientific(np.float32(x), unique=True, trim="-")


def float32_clean(value: float) -> float:
    """The float that :func:`float32_text` writes: a value that came through a Blender float
    property (single precision) as the decimal a person typed (0.2, not 0.20000000298)."""
    return float(float32_text(value))


def json_error(e: json.JSONDecodeError) -> tuple[int, int, str]:
    """(line, column, message) of a JSON syntax error, worded alike by Python 3.11 and 3.13.

    3.13 reports a trailing comma at the comma as "Illegal trailing comma before end of
    object" (or array); 3.11 reports the closing bracket after it as "Expecting property name
    enclosed in double quotes" or "Expecting value". Both are given the 3.13 wording and place.
    """
    doc, pos = e.doc, e.pos
    closer = doc[pos] if pos < len(doc) else ""
    if (closer, e.msg) in (("}", "Expecting property name enclosed in double quotes"),
                           ("]", "Expecting value")):
        comma = pos - 1
        while comma >= 0 and doc[comma] in " \t\r\n":
            comma -= 1
        if comma >= 0 and doc[comma] == ",":
            line = doc.count("\n", 0, comma) + 1
            column = comma - doc.rfind("\n", 0, comma)
            what = "object" if closer == "}" else "array"
            return line, column, f"Illegal trailing comma before end of {what}"
    return e.lineno, e.colno, e.msg


def frame_ranges(frames) -> str:
    """``[1, 2, 3, 7]`` -> ``"1-3, 7"``."""
    frames = sorted(set(int(f) for f in frames))
    out, i = [], 0
    while i < len(frames):
        j = i
        while j + 1 < len(frames) and frames[j + 1] == frames[j] + 1:
            j += 1
        out.append(str(frames[i]) if i == j else f"{frames[i]}-{frames[j]}")
        i = j + 1
    return ", ".join(out)


def listed(names, most: int) -> str:
    """The first ``most`` of ``names`` joined by commas, and how many more there are:
    ``"a, b and 3 more"``."""
    names = [str(n) for n in names]
    more = len(names) - most
    return ", ".join(names[:most]) + (f" and {more} more" if more > 0 else "")
