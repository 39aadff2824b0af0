"""The files an MJCF model reads, confined to the model's folder and the search paths, and its
mesh scales kept sane, before MuJoCo reads any of them (:func:`vart_addon.formats.mjcf.read_mjcf`).

Pure Python (``xml.etree.ElementTree``). MuJoCo reads, besides the model: ``<include file>``
(the text is inserted where the element stands), ``<mesh file>``, ``<hfield file>``,
``<skin file>``, ``<texture file>`` (and its six cube faces ``fileright`` ... ``fileback``)
and ``<model file>`` (a model to attach). A relative name is looked for in the main model's
folder and, failing that, in the folder of the file that names it; asset names go below
``<compiler meshdir>`` (meshes, height fields, skins), ``texturedir`` (textures) or
``assetdir`` (both). :func:`check_files` walks the model and its includes as MuJoCo does and
refuses (:class:`MjcfFileError`, naming the element and the file, in the words of the URDF
importer's refusals: ``'../x.stl' refused: the path leaves the model's folder (/robots/arm)``)
every name whose file, in any of the places MuJoCo may look, lies outside the model's folder
and the search paths; nothing is read but XML of files that passed.

:func:`check_scales` refuses a ``<mesh scale>`` that is not finite or whose size is absurd
(below ``1e-6`` or over ``1e6``: a vertex's coordinate, m, would be over a million times the
file's), naming the mesh; MuJoCo would compile it into infinite or NaN vertices.
"""
from __future__ import annotations

import math
import os
import xml.etree.ElementTree as ET
from typing import Iterable, Sequence

__all__ = ["MjcfFileError", "MalformedXml", "check_files", "check_scales", "SCALE_RANGE", "FILE_ATTRS"]

#: The elements that name files MuJoCo reads, with their attributes.
FILE_ATTRS = {
    "include": ("file",),
    "model": ("file",),
    "mesh": ("file",),
    "hfield": ("file",),
    "skin": ("file",),
    "texture": ("file", "fileright", "fileleft", "fileup", "filedown", "filefront",
                "fileback"),
}
#: Which ``<compiler>`` folders an asset's name goes below.
_ASSET_DIRS = {"mesh": ("meshdir", "assetdir"), "hfield": ("meshdir", "assetdir"),
               "skin": ("meshdir", "assetdir"), "texture": ("texturedir", "assetdir")}
#: Smallest and largest absolute value of a mesh scale factor.
SCALE_RANGE = (1e-6, 1e6)


class MjcfFileError(ValueError):
    """A file an MJCF model names that vart refuses to read (or a scale it refuses)."""


class MalformedXml(MjcfFileError):
    """A file of the model that is not XML (MuJoCo's own message says it better)."""


def _inside(path: str, roots: Sequence[str]) -> bool:
    path = os.path.normpath(path)
    for root in roots:
        try:
            if os.path.commonpath([root, path]) == root:
                return True
        except ValueError:  # another drive (Windows)
            continue
    return False


def _where(roots: Sequence[str]) -> str:
    where = f"the model's folder ({roots[0]})"
    return where + (" and the search paths" if len(roots) > 1 else "")


def _named(el: ET.Element) -> str:
    name = el.get("name")
    return f"<{el.tag} name={name!r}>" if name else f"<{el.tag}>"


class _Walk:
    """A model and its includes, walked as MuJoCo reads them (see the module doc)."""

    def __init__(self, path: str, roots: Sequence[str]):
        self.main_dir = os.path.dirname(path)
        self.roots = list(roots)
        self.names: list[tuple[ET.Element, str, str, str]] = []  # (element, attr, name, dir)
        self.dirs: dict[str, set[str]] = {"meshdir": {""}, "texturedir": {""},
                                          "assetdir": {""}}
        self.seen: set[str] = set()

    def candidates(self, name: str, folder: str, subdirs: Iterable[str] = ("",)) -> list[str]:
        """Every place MuJoCo may read ``name`` from (named in a file of ``folder``)."""
        out = []
        for base in dict.fromkeys((self.main_dir, folder)):
            for sub in subdirs:
                out.append(os.path.normpath(os.path.join(base, sub, name)))
        return out

    def refuse_outside(self, el: ET.Element, attr: str, name: str, places: list[str]) -> None:
        for place in places:
            if not _inside(place, self.roots):
                raise MjcfFileError(f"{_named(el)} {attr}: {name!r} refused: the path leaves "
                                    f"{_where(self.roots)} (it names {place})")

    def file(self, path: str, label: str) -> None:
        """Walk the XML file ``path`` (already checked)."""
        if path in self.seen:
            return
        self.seen.add(path)
        try:
            root = ET.parse(path).getroot()
        except OSError as e:
            raise MjcfFileError(f"{label}: cannot read {path!r}: {e.strerror or e}") from None
        except ET.ParseError as e:
            raise MalformedXml(f"{label}: malformed XML in {os.path.basename(path)}: {e}") \
                from None
        self.element(root, os.path.dirname(path))

    def element(self, el: ET.Element, folder: str) -> None:
        if el.tag == "compiler":
            for key in self.dirs:
                if el.get(key):
                    self.dirs[key].add(el.get(key, ""))
        for attr in FILE_ATTRS.get(str(el.tag), ()):
            name = el.get(attr)
            if not name:
                continue
            if el.tag in ("include", "model"):
                places = self.candidates(name, folder)
                self.refuse_outside(el, attr, name, places)
                found = next((p for p in places if os.path.isfile(p)), None)
                if found is not None:  # else MuJoCo says it is missing
                    self.file(found, f"{_named(el)} {attr} {name!r}")
            else:
                self.names.append((el, attr, name, folder))
        for child in el:
            self.element(child, folder)

    def assets(self) -> None:
        """Check every asset name against every folder MuJoCo may put it below."""
        for el, attr, name, folder in self.names:
            subdirs = {d for key in _ASSET_DIRS[str(el.tag)] for d in self.dirs[key]}
            self.refuse_outside(el, attr, name, self.candidates(name, folder, sorted(subdirs)))


def check_files(path, search_paths: Sequence[str] = ()) -> None:
    """Refuse (:class:`MjcfFileError`) an MJCF model at ``path`` that names a file outside its
    folder and ``search_paths`` (see the module doc); an unreadable or malformed include is
    refused too. Returns None when every file may be read."""
    path = os.path.abspath(os.fspath(path))
    roots = [os.path.dirname(path)] + [os.path.abspath(os.path.expanduser(p))
                                       for p in search_paths if p]
    walk = _Walk(path, roots)
    walk.file(path, os.path.basename(path))
    walk.assets()


def check_scales(spec) -> None:
    """Refuse (:class:`MjcfFileError`) a parsed model (``mujoco.MjSpec``) with a mesh whose
    scale (defaults applied) is not finite or outside :data:`SCALE_RANGE` in size."""
    lo, hi = SCALE_RANGE
    for mesh in spec.meshes:
        scale = [float(s) for s in mesh.scale]
        if not all(math.isfinite(s) and lo <= abs(s) <= hi for s in scale):
            name = f"<mesh name={mesh.name!r}>" if mesh.name else f"<mesh file={mesh.file!r}>"
            raise MjcfFileError(f"{name} scale {' '.join(f'{s:g}' for s in scale)} refused: "
                                f"each factor must be finite, its size between {lo:g} and "
                                f"{hi:g}")
