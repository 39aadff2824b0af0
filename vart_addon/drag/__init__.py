"""Dragging in the viewport: :mod:`.session` (a drag's state, solve per mouse move, cancel
restores everything), :mod:`.events` (Blender events onto a session, as G and R do) and
:mod:`.geometry` (the pure geometry of a drag: rays, planes, axes; numpy only)."""
