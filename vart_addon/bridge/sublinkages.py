"""Sublinkages in a scene: Blender collections with a disposition (MSim's hierarchy).

A sublinkage (:mod:`vart_addon.solver.sublinkages`) is a collection of the scene marked with
a plain ID property, kept by files opened without vart::

    coll["vart"] = {"version": 1, "sublinkage": {"disposition": "driving"}}
                                                 # or "driven", "simultaneous"

Its name is the collection's name. What the collections mean (:func:`read_hierarchy`):

- the *parent* of a sublinkage is the nearest sublinkage collection above it in the scene's
  collection tree (None: the top, the whole linkage); plain collections in between are only
  grouping and change nothing;
- a link's sublinkage is the innermost sublinkage among the collections that hold its object
  (directly, or through plain collections nested in a sublinkage); a link in no sublinkage is
  in the top. A joint follows its child link, as the solver's default does;
- a link whose object is in several collections: those collections' sublinkages must lie on
  one nesting chain (the innermost wins: a link in ``Leg`` and in ``Foot`` nested in ``Leg``
  belongs to ``Foot``); two sublinkages neither inside the other are refused
  (:class:`SchemaError` naming the link and both collections). A collection linked under
  several parents follows the same rule for its parent.

The edits here (make, set, dissolve) change collections only; an operator validates the
result by syncing the bridge (:meth:`.scene.SceneBridge.sync` reads the hierarchy and
re-analyses the solve when it changed) and undoes its change when that refuses.
"""
from __future__ import annotations

from dataclasses import dataclass

import bpy

from ..solver import Linkage, VartError
from ..solver.sublinkages import DISPOSITIONS
from . import checks as CK
from .errors import BridgeError, SchemaError
from .schema import KEY, is_link

VERSION = 1
_TOP_KEYS = ("version", "sublinkage")
_SUB_KEYS = ("disposition",)
_DESCRIPTIONS = {
    "driving": "Solved (with what is nested in it) before its parent, which cannot move its "
               "joints",
    "driven": "Solved after its parent, which it cannot move; what it cannot reach is solved "
              "to least squares and reported",
    "simultaneous": "Solved together with its parent, as if it were not a sublinkage",
}
#: Enum items of the dispositions (the solver's names), for operators and the sidebar.
DISPOSITION_ITEMS = [(d, d.title(), _DESCRIPTIONS[d], i) for i, d in enumerate(DISPOSITIONS)]
#: Blender's collection colour tags (the Outliner's), handed out to new sublinkages in turn.
COLOR_TAGS = tuple(f"COLOR_0{i}" for i in range(1, 9))


@dataclass(frozen=True)
class SublinkageData:
    """One sublinkage read from the scene: its collection's ``name``, its ``parent``
    sublinkage (None: the top), its ``disposition``, and its collection's ``color_tag``."""

    name: str
    parent: str | None
    disposition: str
    color_tag: str = "NONE"


@dataclass(frozen=True)
class Hierarchy:
    """The scene's sublinkages (parents before their children, then in the Outliner's order)
    and ``homes``: ``(link name, sublinkage name)`` of every link not in the top, by link."""

    sublinkages: tuple = ()
    homes: tuple = ()

    def home(self, link: str) -> str | None:
        return dict(self.homes).get(link)

    def names(self) -> list[str]:
        return [s.name for s in self.sublinkages]


EMPTY = Hierarchy()


# ---- one collection's property ----------------------------------------------------------------
def _err(coll, path, problem):
    return SchemaError(coll.name, path, problem, kind="collection")


def disposition_of(coll) -> str | None:
    """The disposition stored on a collection, or None if it is not a sublinkage. Refuses
    (SchemaError naming the collection and key) a malformed or newer property."""
    raw = coll.get(KEY)
    if raw is None:
        return None
    d = raw.to_dict() if hasattr(raw, "to_dict") else raw
    try:
        d = CK.group(d, coll.name, (KEY,))
        CK.known_keys(d, _TOP_KEYS, coll.name, (KEY,))
        version = CK.integer(d.get("version", VERSION), coll.name, (KEY, "version"))
        if "sublinkage" not in d:
            return None
        sub = CK.group(d["sublinkage"], coll.name, (KEY, "sublinkage"))
        CK.known_keys(sub, _SUB_KEYS, coll.name, (KEY, "sublinkage"))
    except SchemaError as e:
        raise _err(coll, e.path, e.problem) from None
    if version > VERSION:
        raise _err(coll, (KEY, "version"), f"written by a newer vart (schema {version}; this "
                   f"one reads {VERSION}): update the extension")
    disposition = sub.get("disposition")
    if disposition not in DISPOSITIONS:
        raise _err(coll, (KEY, "sublinkage", "disposition"),
                   f"must be one of {list(DISPOSITIONS)}, got {disposition!r}")
    return disposition


def write_disposition(coll, disposition: str) -> None:
    """Make ``coll`` a sublinkage with ``disposition`` (or change it). Refuses a bad
    disposition and a collection linked from a library, changing nothing."""
    if disposition not in DISPOSITIONS:
        raise _err(coll, (KEY, "sublinkage", "disposition"),
                   f"must be one of {list(DISPOSITIONS)}, got {disposition!r}")
    if coll.library is not None:
        raise BridgeError(f"collection {coll.name!r} is linked from a library; make it local "
                          "first")
    disposition_of(coll)  # refuses a malformed or newer property before writing into it
    coll[KEY] = {"version": VERSION, "sublinkage": {"disposition": disposition}}


def unmark(coll) -> None:
    """``coll`` stops being a sublinkage (it stays, a plain collection)."""
    if KEY in coll.keys():
        del coll[KEY]


# ---- the scene's collection tree --------------------------------------------------------------
class _Tree:
    """The collection tree of a scene: parents of every collection (None: the scene's own
    collection), their order (pre-order, first visit), and the marked ones."""

    def __init__(self, scene):
        self.root = scene.collection
        self.parents: dict = {}
        self.order: dict = {}  # pre-order position, children in their listed order
        stack = [self.root]
        while stack:
            c = stack.pop()
            if c != self.root:
                if c in self.order:
                    continue
                self.order[c] = len(self.order)
            for child in c.children:
                self.parents.setdefault(child, []).append(None if c == self.root else c)
            stack.extend(reversed(c.children))
        self.disposition = {}
        for c in self.order:
            d = disposition_of(c)
            if d is not None:
                self.disposition[c] = d
        self._above: dict = {}
        self._parent: dict = {}
        self._held: dict | None = None

    def above(self, c):
        """The innermost sublinkage collection at or above collection ``c`` (None: the top)."""
        if c is None or c == self.root:
            return None
        if c not in self._above:
            self._above[c] = c if c in self.disposition else \
                self.innermost([self.above(p) for p in self.parents.get(c, ())], c)
        return self._above[c]

    def parent(self, c):
        """The parent sublinkage collection of sublinkage collection ``c`` (None: the top)."""
        if c not in self._parent:
            self._parent[c] = self.innermost([self.above(p) for p in self.parents[c]], c)
        return self._parent[c]

    def chain(self, c) -> list:
        """``c`` and its sublinkage ancestors, innermost first."""
        out = []
        while c is not None:
            out.append(c)
            c = self.parent(c)
        return out

    def innermost(self, candidates, owner, kind="collection"):
        """The innermost of sublinkage collections that must lie on one nesting chain."""
        found = []
        for c in candidates:
            if c is not None and c not in found:
                found.append(c)
        if not found:
            return None
        found.sort(key=lambda c: len(self.chain(c)))
        for outer, inner in zip(found, found[1:]):
            if outer not in self.chain(inner):
                raise SchemaError(owner if isinstance(owner, str) else owner.name, (),
                                  f"in two sublinkages, collections {outer.name!r} and "
                                  f"{inner.name!r}, neither inside the other: a link belongs "
                                  "to one sublinkage (unlink it from one of them)", kind=kind)
        return found[-1]

    def collections_of(self, ob) -> list:
        """The collections of this scene that hold ``ob`` directly (the scene's own
        collection included). Gathered once from the collections' objects (an object's
        ``users_collection`` searches every collection of the file: ~30 us an object)."""
        if self._held is None:
            self._held = {}
            for c in (self.root, *self.order):
                for o in c.objects:
                    self._held.setdefault(o.name, []).append(c)
        return self._held.get(ob.name, [])

    def home(self, ob):
        """The sublinkage collection a link object belongs to (None: the top)."""
        return self.innermost([self.above(c) for c in self.collections_of(ob)], ob.name,
                              kind="object")


def read_hierarchy(scene, objects) -> Hierarchy:
    """The sublinkages of ``scene`` and the homes of the link objects among ``objects`` (see
    the module doc). Raises SchemaError naming the collection or link at fault."""
    tree = _Tree(scene)
    if not tree.disposition:
        return EMPTY
    marked = sorted(tree.disposition, key=lambda c: (len(tree.chain(c)), tree.order[c]))
    subs = tuple(SublinkageData(c.name, None if tree.parent(c) is None else
                                tree.parent(c).name, tree.disposition[c], c.color_tag)
                 for c in marked)
    homes = []
    for ob in objects:
        if is_link(ob):
            home = tree.home(ob)
            if home is not None:
                homes.append((ob.name, home.name))
    return Hierarchy(subs, tuple(sorted(homes)))


def sublinkage_collection(scene, ob):
    """The sublinkage collection of link object ``ob`` (None: the top)."""
    return _Tree(scene).home(ob)


def sublinkage_collections(scene) -> list:
    """The scene's sublinkage collections, parents first (as :func:`read_hierarchy`)."""
    tree = _Tree(scene)
    return sorted(tree.disposition, key=lambda c: (len(tree.chain(c)), tree.order[c]))


# ---- into the solver --------------------------------------------------------------------------
def apply(lk: Linkage, hierarchy: Hierarchy) -> None:
    """Make ``lk``'s sublinkages those of ``hierarchy`` (each edit marks the goals changed, so
    the next solve analyses its stages and groups again). Raises BridgeError."""
    members: dict = {}
    for link, home in hierarchy.homes:
        members.setdefault(home, []).append(link)
    try:
        for name in reversed(list(lk.sublinkages)):
            lk.remove_sublinkage(name)
        for s in hierarchy.sublinkages:
            lk.add_sublinkage(s.name, s.parent, s.disposition, links=members.get(s.name, ()))
    except VartError as e:
        raise BridgeError(f"sublinkages: {e}") from None


# ---- edits of collections (operators validate the result through the bridge) ------------------
def _movable(ob, link, source) -> bool:
    """``ob`` moves with link ``link`` into a sublinkage: ``link`` itself, or an object that is
    not a link, in ``source``, whose nearest link ancestor (Blender parenting) is ``link``."""
    if ob == link:
        return True
    if is_link(ob) or source not in ob.users_collection:
        return False
    p = ob.parent
    while p is not None and not is_link(p):
        p = p.parent
    return p == link


def source_collection(scene, obs):
    """The one collection holding every link object of ``obs`` (each must be in exactly
    one collection of the scene). Raises BridgeError naming the link at fault."""
    tree = _Tree(scene)
    source = None
    for ob in obs:
        if not is_link(ob):
            raise BridgeError(f"object {ob.name!r} is not a link (Vart > Make Links)")
        held = tree.collections_of(ob)
        if len(held) != 1:
            raise BridgeError(f"link {ob.name!r} is in {len(held)} collections of this scene ("
                              + ", ".join(repr(c.name) for c in held) + "): a new sublinkage "
                              "takes a link out of its one collection; unlink it from the others")
        if source is not None and held[0] != source:
            raise BridgeError(f"the links are in different collections ({source.name!r}, "
                              f"{held[0].name!r}): select links of one collection")
        source = held[0]
    if source is None:
        raise BridgeError("no link selected")
    if source.library is not None:
        raise BridgeError(f"collection {source.name!r} is linked from a library")
    return source


def make_sublinkage(scene, obs, name: str, disposition: str):
    """A new collection ``name`` (Blender makes the name unique) holding the link objects
    ``obs`` and their non-link Blender children, nested in the collection that held them,
    marked with ``disposition`` and the first colour tag no other sublinkage uses. Returns
    the collection."""
    if disposition not in DISPOSITIONS:
        raise BridgeError(f"disposition must be one of {list(DISPOSITIONS)}, got "
                          f"{disposition!r}")
    if not isinstance(name, str) or not name.strip():
        raise BridgeError("a sublinkage needs a name")
    source = source_collection(scene, obs)
    used = {c.color_tag for c in sublinkage_collections(scene)}
    coll = bpy.data.collections.new(name)
    tag = next((t for t in COLOR_TAGS if t not in used), COLOR_TAGS[len(used) % len(COLOR_TAGS)])
    coll.color_tag = tag  # type: ignore[assignment]  # one of the stubs' literal tags
    source.children.link(coll)
    write_disposition(coll, disposition)
    moving = [o for ob in obs for o in [ob, *ob.children_recursive] if _movable(o, ob, source)]
    for o in dict.fromkeys(moving):
        coll.objects.link(o)
        source.objects.unlink(o)
    return coll


def parent_collection(scene, coll):
    """The collection ``coll`` is nested in (its first parent; the scene's own collection at
    the top)."""
    tree = _Tree(scene)
    if coll not in tree.parents:
        raise BridgeError(f"collection {coll.name!r} is not in scene {scene.name!r}")
    return tree.parents[coll][0] or scene.collection


def dissolve(scene, coll, keep_collection: bool = False) -> None:
    """``coll`` stops being a sublinkage. Unless ``keep_collection``, its objects and nested
    collections go to the collection it is nested in and it is removed."""
    if coll.library is not None:
        raise BridgeError(f"collection {coll.name!r} is linked from a library")
    parent = parent_collection(scene, coll)
    if keep_collection:
        unmark(coll)
        return
    for ob in list(coll.objects):
        if ob.name not in parent.objects:
            parent.objects.link(ob)
        coll.objects.unlink(ob)
    for child in list(coll.children):
        if child.name not in parent.children:
            parent.children.link(child)
        coll.children.unlink(child)
    bpy.data.collections.remove(coll)
