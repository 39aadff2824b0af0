"""The solver's model of a mechanism: :class:`Linkage`, its data and queries
(:class:`~.linkage_core.LinkageCore`) with its edits, one mix-in per concern:
:class:`~.editing.LinkageEditing` (links and joints), :class:`~.tree_edit.TreeEditing` (the
spanning tree), :class:`~.goals_edit.GoalsEditing` (goals and values) and
:class:`~.sublinkages.SublinkageEditing` (MSim's hierarchy).
"""
from __future__ import annotations

from .editing import LinkageEditing
from .goals_edit import GoalsEditing
from .sublinkages import SublinkageEditing
from .tree_edit import TreeEditing


class Linkage(LinkageEditing, TreeEditing, GoalsEditing, SublinkageEditing):
    """A mechanism: links, joints, root joints, the spanning tree and gravity.

    Read it freely; change it only through its methods (``linkage.add_joint(...)``), which
    validate their input and leave the linkage unchanged when they raise
    :class:`~.errors.VartError`.
    """
