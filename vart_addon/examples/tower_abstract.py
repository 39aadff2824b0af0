"""The abstracted tower (example ``tower_abstract``): MSim's kinematic abstraction on the modular
tower (:mod:`.tower`, built without its pull). The 90 cells are cut into 30 *blocks* of 3
consecutive cells (3 DoF each). Block b (cells 3b+1..3b+3) goes from its *bottom rung*
``rung{3b}`` to its *top rung* ``rung{3b+3}``; its motion is expressed by two virtual joints
through a virtual link ``block{b}_axis`` (an empty):

- ``block{b}_bend``: a virtual revolute (tree joint), bottom rung -> ``block{b}_axis``, about
  the tower plane's normal (world -y) through the bottom rung's centre;
- ``block{b}_stretch``: a virtual prismatic (closure), ``block{b}_axis`` -> top rung, along
  the block's axis (bottom rung centre to top rung centre, world, at build time), its frame at
  the top rung's centre: q = 0 as built, positive lengthens the block.

Both are 0 as built. Each block's real links (its rails and its three upper rungs, with the
cells' joints, which follow their child links) are a *driven* sublinkage, the collection
``block{b}`` nested in ``tower``; the axes and their bend joints stay in the top, which drives
the blocks: the top is solved first (the bends), then each block meets its two abstract joints
(the stretch closure, and its target when it has one). A block has 3 DoF for the 3 planar
conditions its abstract joints put on its top rung (angle, offset across the axis, length
along it): keyed, they fix it; a stretch without a target leaves its length to the solve
(least motion): a bent block shortens, its cells shearing to turn its top rung (held at its
length, the bends below are out of reach).

Keyed (frames 1..:data:`~.common.MECHANISM_FRAMES`): the bends of :data:`BENDS` (the tower
bends over) and the stretch target of :data:`STRETCH` (one block shortens); every other
abstract joint keeps its value.
"""
from __future__ import annotations

import numpy as np

from ..bridge import schema as S
from ..bridge import sublinkages as SL
from ..bridge.edits import add_virtual_link, unique_joint_name
from ..solver import se3
from .common import _PLANAR, MECHANISM_FRAMES, Built, _origin, _scene_joint_names, at, key_value
from .tower import TOWER, build_tower, tower_nodes

#: Cells per block: 3 cells (3 DoF) for the 3 planar conditions of a bend and a stretch.
CELLS_PER_BLOCK = 3
#: Blocks whose bend is keyed, and its value at the last frame (rad): the tower bends over.
BENDS = ((4, 0.2), (14, 0.2), (24, 0.2))
#: The block whose stretch target is keyed, and its value at the last frame (m).
STRETCH = (9, -0.02)


def block_axis_frame(c0, c1) -> np.ndarray:
    """Rotation (world) whose z is the unit vector from ``c0`` to ``c1`` (world points in the
    tower's x-z plane) and whose y is world +y exactly (a planar loop moves only while its
    axes stay exactly parallel)."""
    d = np.asarray(c1, float) - np.asarray(c0, float)
    z = np.array([d[0], 0.0, d[2]]) / np.hypot(d[0], d[2])
    return np.column_stack([(z[2], 0.0, -z[0]), (0.0, 1.0, 0.0), z])


def build_tower_abstract(context) -> Built:
    """The tower with its blocks as driven sublinkages and their abstract joints keyed (see
    the module doc). ``Built.joints`` are the abstract joints (bend and stretch of each block,
    in block order); ``Built.driven`` the first keyed bend."""
    built = build_tower(context, pull=False)
    n = int(TOWER["cells"])
    A, B = tower_nodes(n, TOWER["width"], TOWER["height"], TOWER["jitter"])
    o = _origin(context)
    scene = context.scene

    def centre(i):  # rung i's centre, world (float64, as the tower's joint frames)
        return o + (np.asarray((A[i][0], 0.0, A[i][1])) + (B[i][0], 0.0, B[i][1])) / 2

    def T_rung(i):  # rung i's frame: world-aligned at A_i (:func:`.tower.build_tower`)
        return at(o + (A[i][0], 0.0, A[i][1]))

    existing = set(_scene_joint_names(scene))
    abstract, axes = [], []
    for b in range(n // CELLS_PER_BLOCK):
        lo, hi = CELLS_PER_BLOCK * b, CELLS_PER_BLOCK * (b + 1)
        bottom, top = built.links[f"rung{lo}"], built.links[f"rung{hi}"]
        c0, c1 = centre(lo), centre(hi)
        R = block_axis_frame(c0, c1)
        T_axis = at(c0, R)
        axis = add_virtual_link(f"block{b}_axis", T_axis, built.collection)
        axis.empty_display_size = 0.1
        bend = unique_joint_name(f"block{b}_bend", existing)
        W = at(c0, _PLANAR)
        S.write_joint(axis, bend, "revolute", bottom, virtual=True,
                      T_parent_mob=se3.inverse(T_rung(lo)) @ W,
                      T_child_frame=se3.inverse(T_axis) @ W)
        S.update_link(axis, root_tree=False)
        existing.add(bend)
        stretch = unique_joint_name(f"block{b}_stretch", existing)
        W = at(c1, R)
        S.write_joint(top, stretch, "prismatic", axis, virtual=True, tree=False,
                      T_parent_mob=se3.inverse(T_axis) @ W,
                      T_child_frame=se3.inverse(T_rung(hi)) @ W,
                      target_q=[0.0] if b == STRETCH[0] else None)
        existing.add(stretch)
        abstract += [bend, stretch]
        axes.append(axis)
        members = [built.links[f"{part}{i}"] for i in range(lo + 1, hi + 1)
                   for part in ("left", "right", "rung")]
        SL.make_sublinkage(scene, members, f"block{b}", "driven")
    S.read_scene(scene.objects)  # what was written reads back valid (cross-object checks)
    for b, angle in BENDS:
        key_value(axes[b], abstract[2 * b], "q", [(1, [0.0]), (MECHANISM_FRAMES, [angle])])
    b, length = STRETCH
    key_value(built.links[f"rung{CELLS_PER_BLOCK * (b + 1)}"], abstract[2 * b + 1],
              "target_q", [(1, [0.0]), (MECHANISM_FRAMES, [length])])
    context.view_layer.update()
    links = {**built.links, **{ob.name: ob for ob in axes}}
    return Built("tower_abstract", built.collection, links, abstract, abstract[2 * BENDS[0][0]],
                 built.frames)
