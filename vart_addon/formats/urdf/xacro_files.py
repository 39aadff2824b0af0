"""xacro robot descriptions: expanded into URDF text by the ``xacro`` package (ROS's own).

Most robots of the ROS world are published as ``.urdf.xacro`` (or ``.xacro``): XML macros,
properties, math (``${pi/2}``), arguments (``<xacro:arg>``, ``$(arg name)``), conditionals,
includes of other files (``$(find pkg)/urdf/part.xacro``) and YAML parameter files
(``xacro.load_yaml(...)``). :func:`expand_xacro` runs ROS's own xacro (the PyPI package
``xacro``, which the extension ships with PyYAML) on a file and returns the URDF it gives,
exactly as ``ros2 run xacro xacro file.urdf.xacro name:=value`` would, except for where
packages are found:

- ``$(find pkg)`` is the folder of package ``pkg``, looked for without ROS as ``package://``
  mesh names are (:func:`.mesh_paths.find_package`: the file's folder and its parents, the
  user's search paths, ROS_PACKAGE_PATH / AMENT_PREFIX_PATH); a package not found is an
  error naming it and the folders to add.
- Arguments are ``{name: value}`` (:func:`parse_args` reads ``name:=value`` pairs as typed on
  a command line).

xacro evaluates the ``${...}`` expressions of a file as Python (in its own restricted
namespace): import xacro files you trust, as you would run them with ROS.

Errors (a malformed file, an unknown macro, a missing argument, include or package) raise
:class:`.base.UrdfError` naming the file, with xacro's message and the include chain.
"""
from __future__ import annotations

import contextlib
import io
import os
import re
import shlex
import xml.parsers.expat
from typing import Mapping, Optional, Sequence

from . import mesh_paths
from .base import UrdfError

#: File names read as xacro (lower case endings).
XACRO_ENDINGS = (".xacro",)


def is_xacro(path) -> bool:
    """True if the file at ``path`` is a xacro file (by its name: ``*.xacro``, including
    ``*.urdf.xacro``)."""
    return os.fspath(path).lower().endswith(XACRO_ENDINGS)


def uses_xacro(data: bytes) -> bool:
    """True if URDF text (bytes) declares the xacro namespace: a ``.urdf`` that needs
    expanding (a common way to ship a xacro file under a URDF's name)."""
    return b"xmlns:xacro" in data


def parse_args(text: str) -> dict:
    """``"name:=value other:=2"`` -> ``{"name": "value", "other": "2"}`` (shell quoting for
    values with spaces). Raises UrdfError for a word that is not ``name:=value``."""
    out = {}
    try:
        words = shlex.split(text or "")
    except ValueError as e:
        raise UrdfError(f"xacro arguments: {e}") from None
    for w in words:
        name, sep, value = w.partition(":=")
        if not sep or not name.strip():
            raise UrdfError(f"xacro arguments: {w!r} is not name:=value")
        out[name.strip()] = value
    return out


def _xacro():
    try:
        import xacro
    except ImportError:  # the extension ships it; a plain Python may not have it
        raise UrdfError("reading .xacro files needs the 'xacro' package (shipped with the "
                        "vart extension; elsewhere: pip install xacro==2.1.1 PyYAML)") from None
    return xacro


def expand_xacro(path, *, args: Optional[Mapping[str, str]] = None,
                 search_paths: Sequence[str] = (), use_env: bool = True,
                 environ=None, warnings: Optional[list] = None) -> str:
    """The URDF text that xacro file ``path`` expands to with ``args`` (name -> value, as
    strings; see the module doc for ``$(find pkg)`` with ``search_paths`` and ``use_env``).
    What xacro warns about (a redefined symbol, a deprecated form) is appended to
    ``warnings``, one line each, instead of being printed. Raises UrdfError naming the file
    (OSError if it cannot be opened)."""
    path = os.path.abspath(os.fspath(path))
    name = os.path.basename(path)
    with open(path, "rb"):  # an unreadable file is an OSError, as for a URDF
        pass
    xacro = _xacro()
    from xacro import substitution_args as SA

    def find(pkg: str) -> str:
        found = mesh_paths.find_package(pkg, path, search_paths, use_env=use_env,
                                        environ=environ)
        if found is None:
            raise xacro.XacroException(
                f"$(find {pkg}): no folder of package '{pkg}' near the file, in the search "
                "paths or in ROS_PACKAGE_PATH / AMENT_PREFIX_PATH; add the folder holding "
                f"'{pkg}' to the search paths")
        return found

    saved = SA._eval_find
    SA._eval_find = find
    said = io.StringIO()
    try:
        with contextlib.redirect_stderr(said):
            doc = xacro.process_file(path, mappings={str(k): str(v) for k, v in
                                                     (args or {}).items()})
        if warnings is not None:
            warnings += [f"{name}: xacro: {line.strip()}" for line in
                         said.getvalue().splitlines() if line.startswith("warning")]
        return doc.toxml()
    except (xacro.XacroException, SA.ArgException, SA.SubstitutionException) as e:
        where = " > ".join(os.path.basename(str(f)) for f in (xacro.filestack or []) if f)
        tail = f" (in {where})" if where and where != name else ""
        msg = " ".join(str(e).split()) or type(e).__name__
        arg = re.match(r"Undefined substitution argument (\S+)", msg)
        if isinstance(e, SA.ArgException) or arg:
            a = arg[1] if arg else str(e)
            msg = f"undefined argument '{a}': give it as {a}:=value"
        raise UrdfError(f"{name}: xacro: {msg}{tail}") from None
    except xml.parsers.expat.ExpatError as e:
        raise UrdfError(f"{name}: malformed XML: {e}") from None
    except (NameError, SyntaxError, TypeError, ValueError, ZeroDivisionError) as e:
        raise UrdfError(f"{name}: xacro: {type(e).__name__}: {e}") from None
    finally:
        SA._eval_find = saved
        xacro.filestack = None
        xacro.macrostack = None
        xacro.all_includes.clear()
