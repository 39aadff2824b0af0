"""A spanning forest of joints (union-find): which joints a tree keeps and which close loops.

Used where a mechanism's real joints must form a tree (the URDF export, the statics): the
joints are taken in the order given, each kept unless its two links (names; ``None``, the
ground, is a node like any other) are already connected, and then it closes a loop.
"""
from __future__ import annotations


class Forest:
    """Union-find over link names: :meth:`add` a joint, :meth:`root` a link's component."""

    def __init__(self):
        self._up: dict = {}

    def root(self, x):
        """The representative of ``x``'s component (with path halving)."""
        up = self._up
        while up.get(x, x) != x:
            up[x] = up.get(up[x], up[x])
            x = up[x]
        return x

    def add(self, joint) -> bool:
        """Join ``joint``'s parent and child: True, or False if they were connected already
        (the joint closes a loop)."""
        a, b = self.root(joint.parent), self.root(joint.child)
        if a == b:
            return False
        self._up[a] = b
        return True


def spanning_forest(joints) -> tuple[list, list, Forest]:
    """``(tree joints, loop-closing joints, the forest)`` of ``joints`` in their order."""
    forest = Forest()
    tree: list = []
    loops: list = []
    for j in joints:
        (tree if forest.add(j) else loops).append(j)
    return tree, loops, forest
