"""A planning group of the scene's robot (its SRDF's ``<group>``: MoveIt's ``panda_arm``, or
``arm`` in example-robot-data's ``panda.srdf``) as the scene's joints, for an export of that
group alone (the arm without its fingers).

The SRDF is the one given, else the groups the import stored with the robot (its
collection's ``srdf``: the file it read and its groups resolved then, so the files need not
be where they were any more), else, for a robot imported before vart stored them, the SRDF shipped with its URDF
(:func:`~vart_addon.formats.urdf.srdf.find_srdf` beside the file its collection keeps, see
:mod:`vart_addon.io_urdf.importer`); the group's joints are its URDF joints as MoveIt counts
them (:func:`~vart_addon.formats.urdf.srdf.group_joints`), named as the scene names them (an
import renames a clashing joint ``name.001``).
"""
from __future__ import annotations

import os

from ..bridge import schema as S
from ..formats.urdf import files as urdf
from ..formats.urdf import srdf as SR
from .joint_columns import TrajectoryError, _base_name, _link_objects

__all__ = ["group_joints"]


def group_joints(scene, group: str, srdf=None, data=None) -> list[str]:
    """The scene joint names of planning group ``group``, in the robot's tree order: of the
    SRDF at ``srdf`` (a path) or, by default, the SRDF shipped with each imported robot's
    URDF; the one robot whose SRDF has the group. ``data``: the scene's read vart data (read
    if None). :class:`TrajectoryError` when no robot's SRDF has the group (saying which
    groups they have, or why no SRDF was read), when two robots' have it, or when the group
    names a joint or link its URDF lacks."""
    from ..io_urdf.importer import SOURCE_KEY, read_source
    if data is None:
        data = S.read_scene(_link_objects(scene).values())
    found, seen = [], []
    for coll in scene.collection.children_recursive:
        src = coll.get(SOURCE_KEY)
        if src is None:
            continue
        stored = src.get("srdf") if not srdf else None
        if stored is not None:  # read and resolved at import
            groups = stored.get("groups", {})
            if group in groups:
                found.append((coll, [str(n) for n in groups[group]]))
            else:
                seen.append(f"{os.path.basename(str(stored.get('file', 'the SRDF')))} of robot "
                            f"{coll.name!r} has "
                            + (", ".join(map(repr, groups.keys())) or "no groups"))
            continue
        try:
            robot = read_source(src)
            path = os.fspath(srdf) if srdf else SR.find_srdf(str(src.get("file", "")),
                                                             robot.name)
            if path is None:
                seen.append(f"robot {coll.name!r} has no SRDF beside its URDF (choose one)")
                continue
            sr = SR.read_srdf(path)
        except (OSError, urdf.UrdfError, SR.SrdfError) as e:
            seen.append(f"robot {coll.name!r}: {e}")
            continue
        if group not in sr.groups:
            seen.append(f"{os.path.basename(path)} of robot {coll.name!r} has "
                        + (", ".join(map(repr, sr.groups)) or "no groups"))
            continue
        try:
            names = SR.group_joints(sr, robot, group)
        except SR.SrdfError as e:
            raise TrajectoryError(f"joint group {group!r}: {e}") from None
        found.append((coll, names))
    if not found:
        raise TrajectoryError(f"no joint group {group!r}: "
                              + ("; ".join(seen) or "the scene has no robot imported from a "
                                 "URDF (File > Import > Vart URDF)"))
    if len(found) > 1:
        raise TrajectoryError(f"joint group {group!r} is in the SRDF of several robots: "
                              + ", ".join(repr(c.name) for c, _ in found))
    coll, names = found[0]
    members = {ob.name for ob in coll.all_objects}
    scene_name: dict[str, str] = {}
    for jn, j in data.joints.items():
        if j.child in members:
            scene_name.setdefault(jn, jn)
            scene_name.setdefault(_base_name(jn), jn)
    return [scene_name[n] for n in names if n in scene_name]
