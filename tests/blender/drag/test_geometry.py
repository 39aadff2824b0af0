"""The geometry of a viewport drag (vart_addon.drag.geometry: pure numpy, no window): constrained
translation and rotation from view rays, constraint cycling, snapping, precision."""
from __future__ import annotations

import math

import numpy as np
import pytest

from vart_addon.drag import geometry as DM
from vart_addon.solver import se3


def top_ray(x, y):
    """An orthographic top view: rays straight down through (x, y)."""
    return np.array([x, y, 10.0]), np.array([0.0, 0.0, -1.0])


DOWN = np.array([0.0, 0.0, -1.0])


def test_free_translation_moves_in_the_view_plane_through_the_grabbed_point():
    d, s = DM.translation(top_ray(1, 1), top_ray(1.5, 0.25), [1, 1, 3], DOWN)
    np.testing.assert_allclose(d, [0.5, -0.75, 0.0])
    assert s is None
    # an oblique perspective ray: the point stays in the plane through the grabbed point
    o = np.array([0.0, -5.0, 5.0])
    g = np.array([0.0, 0.0, 0.0])
    view = (g - o) / np.linalg.norm(g - o)
    d, _ = DM.translation((o, g - o), (o, np.array([1.0, 0.0, 0.0]) - o), g, view)
    assert abs(d @ view) < 1e-12 and d[0] > 0


def test_axis_constraint_follows_the_nearest_point_of_the_axis_line():
    c = DM.Constraint("X")
    d, s = DM.translation(top_ray(0, 0), top_ray(2, 7), [0, 0, 0], DOWN, c, np.eye(4))
    np.testing.assert_allclose(d, [2, 0, 0])
    assert s == pytest.approx(2.0)
    # the view looks along the axis: the mouse cannot say where along it -> no motion
    cz = DM.Constraint("Z")
    d, s = DM.translation(top_ray(0, 0), top_ray(2, 7), [0, 0, 0], DOWN, cz, np.eye(4))
    np.testing.assert_allclose(d, 0.0)


def test_local_axis_and_plane_constraints_use_the_links_own_axes():
    T0 = se3.make_pose(se3.rot_z(math.pi / 2), [0, 0, 0])  # local x = world y
    c = DM.Constraint("X", "LOCAL")
    np.testing.assert_allclose(DM.axis_vector(c, T0), [0, 1, 0], atol=1e-15)
    d, s = DM.translation(top_ray(0, 0), top_ray(3, 2), [0, 0, 0], DOWN, c, T0)
    np.testing.assert_allclose(d, [0, 2, 0], atol=1e-12)
    # across global Z (Shift+Z) from the top: the XY plane through the grabbed point
    pz = DM.Constraint("Z", plane=True)
    d, _ = DM.translation(top_ray(0, 0), top_ray(4, 1), [0, 0, 2], DOWN, pz, np.eye(4))
    np.testing.assert_allclose(d, [4, 1, 0], atol=1e-12)
    # across X from an oblique view: the motion has no x
    oblique = np.array([0.3, 1.0, -0.5])
    ray = lambda x, z: (np.array([x, -10.0, z]), oblique)  # noqa: E731
    p = DM.Constraint("X", plane=True)
    d, _ = DM.translation(ray(0, 0), ray(4, 1), [0, 0, 0], oblique, p, np.eye(4))
    assert abs(d[0]) < 1e-12 and abs(d[2]) > 0.1
    assert p.label() == "in plane YZ (global)" and c.label() == "along X (local)"


def test_constraints_cycle_like_blender():
    c = DM.next_constraint(None, "X")
    assert c == DM.Constraint("X", "GLOBAL")
    c = DM.next_constraint(c, "X")
    assert c == DM.Constraint("X", "LOCAL")
    assert DM.next_constraint(c, "X") is None
    assert DM.next_constraint(c, "Y") == DM.Constraint("Y", "GLOBAL")
    assert DM.next_constraint(DM.Constraint("Y"), "Y", plane=True) == \
        DM.Constraint("Y", "GLOBAL", plane=True)
    with pytest.raises(ValueError):
        DM.next_constraint(None, "W")


def test_rotation_follows_the_mouse_around_the_pivot_as_the_viewer_sees_it():
    a = DM.screen_angle([0, 0], [1, 0], [0, 1])
    assert a == pytest.approx(math.pi / 2)
    assert DM.screen_angle([0, 0], [0, 0], [0, 1]) == 0.0
    # free rotation about the axis toward the viewer: counter-clockwise on screen = +z here
    axis = DM.rotation_axis(DOWN)
    np.testing.assert_allclose(axis, [0, 0, 1])
    T = DM.rotated(np.eye(4), [1, 0, 0], axis, math.pi / 2)
    np.testing.assert_allclose(T[:3, 3], [1, -1, 0], atol=1e-15)  # the origin turned about
    np.testing.assert_allclose(T[:3, :3], se3.rot_z(math.pi / 2), atol=1e-15)
    # a constrained axis pointing away from the viewer is flipped
    np.testing.assert_allclose(DM.rotation_axis([0, 0, 1], DM.Constraint("Z")), [0, 0, -1])
    # winding round the pivot keeps adding up
    assert DM.unwrap(-math.pi + 0.1, math.pi - 0.1) == pytest.approx(math.pi + 0.1)


def test_snapping_and_precision():
    assert DM.snap(0.26, 0.1) == pytest.approx(0.3)
    np.testing.assert_allclose(DM.snap(np.array([0.04, -0.06]), 0.1), [0.0, -0.1])
    assert DM.snap(math.radians(7.4), DM.SNAP_ANGLE) == pytest.approx(math.radians(5))
    p = DM.Precision()
    assert p(1.0, False) == 1.0
    assert p(2.0, True) == pytest.approx(1.0)     # Shift pressed at raw 2: output stays put
    assert p(12.0, True) == pytest.approx(2.0)    # ten times finer
    assert p(13.0, False) == pytest.approx(2.0)   # released: no jump
    assert p(15.0, False) == pytest.approx(4.0)
    v = DM.Precision()
    np.testing.assert_allclose(v(np.array([1.0, 0, 0]), True), [1.0, 0, 0])
    np.testing.assert_allclose(v(np.array([11.0, 0, 0]), True), [2.0, 0, 0])


def test_degenerate_rays_give_no_motion():
    assert DM.ray_plane([0, 0, 1], [1, 0, 0], [0, 0, 0], [0, 0, 1]) is None
    assert DM.ray_line([0, 0, 1], [1, 0, 0], [0, 0, 0], [2, 0, 0]) is None
    p = DM.ray_line([0, 5, 1], [0, -1, 0], [0, 0, 0], [1, 0, 0])
    np.testing.assert_allclose(p, [0, 0, 0])


def test_status_text_names_unmet_levels_and_time():
    from vart_addon.solver import LevelStatus, SolveStatus
    levels = [LevelStatus(n) for n in ("invariant", "limit", "lock", "potential", "target",
                                       "posture")]
    levels[0].active = levels[4].active = True
    st = SolveStatus(levels=levels)
    assert DM.status_text(st, 1.25) == "goals met | 1.2 ms/update"
    levels[4].satisfied, levels[4].error = False, 0.0123
    assert DM.status_text(st) == "unmet: target 1.2e-02"
    assert DM.status_text(None) == "not solved yet"
    assert DM.angle_text(math.pi / 2) == "+90.00\u00b0" and DM.length_text(-0.5) == "-0.5000 m"
