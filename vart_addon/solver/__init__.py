"""vart's kinematics engine: pure numpy, never imports Blender.

Build a :class:`Linkage` (links, joints of the 12 catalog types plus ``fixed``, goals), then
:class:`Solver` moves every tree joint so the goals hold in strict priority order::

    from vart_addon.solver import Linkage, Solver
    lk = Linkage()
    lk.add_link("crank")
    lk.add_joint("hinge", "revolute", None, "crank")
    lk.set_target("hinge", [0.5])
    Solver(lk).solve()
    lk.pose("crank")            # 4x4 T_world_crank

Modules:

- :mod:`.se3` (Lie groups), :mod:`.joint_types` (the catalog; its pose derivatives in
  :mod:`.pose_derivatives`), :mod:`.linkage` (data);
- :mod:`.parts` (``Link``, ``Joint``);
- :mod:`.editing`, :mod:`.tree_edit`, :mod:`.goals_edit` (validated mutations, also
  ``Linkage``'s methods);
- :mod:`.kinematics` (vectorized FK), :mod:`.topology` (solve groups; planar loops in
  :mod:`.planar`), :mod:`.goals`,
  :mod:`.evaluation` (a group's goals at a configuration), :mod:`.pdls`, :mod:`.stepper` (one
  step), :mod:`.solver` (the loop), :mod:`.status` (what a solve reports) and :mod:`.trace`
  (its optional per-iteration trace);
- :mod:`.sublinkages` (MSim's hierarchy: driving, driven and simultaneous sublinkages and
  the solve order they give; edits also ``Linkage``'s methods);
- :mod:`.text` (values and parse errors as text, alike under numpy 1 and 2).

File formats (URDF, trajectories, STL) are :mod:`vart_addon.formats`, one layer up.

Speed: the drag loop is a few hundred numpy calls on small arrays, so the per-call cost is what
counts. Hot paths multiply 1-D and 2-D arrays with ``a.dot(b)`` rather than ``a @ b`` (same
result there, about half a microsecond less per call: ``@`` is a generalized ufunc), keep
``@`` for stacks of matrices, and use plain floats for a single joint's rotation.
"""
from .errors import VartError
from .joint_types import CATALOG, JointType, joint_type
from .linkage import Linkage
from .parts import GROUND, Joint, Link
from .solver import Settings, Solver
from .status import LevelStatus, SolveStatus

__all__ = ["CATALOG", "GROUND", "Joint", "JointType", "Link", "Linkage", "LevelStatus",
           "Settings", "SolveStatus", "Solver", "VartError", "joint_type"]
