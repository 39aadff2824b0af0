"""Helpers shared by the solver tests, handed out as fixtures.

pytest runs in importlib mode, so test modules cannot import a sibling helper module; they ask
for the ``vh`` fixture instead (session scoped, so hypothesis tests may use it too).
"""

from __future__ import annotations

import math
from types import SimpleNamespace

import numpy as np
import pytest

from vart_addon.solver import Linkage, Settings, Solver, se3


def planar_pose(x, y, angle=0.0, z=0.0):
    """World pose of a frame at (x, y, z) rotated by ``angle`` about z."""
    return se3.make_pose(se3.rot_z(angle), [x, y, z])


def yaw(T) -> float:
    """Rotation angle about z of a pose whose rotation is about z only."""
    return math.atan2(T[1, 0], T[0, 0])


def wrap(a):
    """Angle(s) wrapped into (-pi, pi]."""
    return -((np.pi - np.asarray(a)) % (2 * np.pi) - np.pi)


def snapshot(lk: Linkage) -> dict:
    """Everything a failed mutation must leave untouched, as plain comparable values."""
    def arr(x):
        return None if x is None else np.array(x, dtype=float).round(15).tolist()

    def joint(j):
        return dict(parent=j.parent, child=j.child, type=j.jtype.name, q=arr(j.q),
                    tree_dir=j.tree_dir, Tpm=arr(j.T_parent_mob), Tcf=arr(j.T_child_frame),
                    lower=arr(j.lower), upper=arr(j.upper), pitch=j.pitch, virtual=j.virtual,
                    lock=arr(j.lock_q), target=arr(j.target_q),
                    mask=None if j.target_mask is None else list(map(bool, j.target_mask)),
                    posture=arr(j.posture_q), stiffness=j.stiffness, rest=arr(j.rest_q),
                    mimic=j.mimic)

    return dict(
        links={n: (l.mass, arr(l.com), l.virtual) for n, l in lk.links.items()},
        joint_keys=list(lk.joints),
        joints={n: joint(j) for n, j in lk.joints.items()},
        roots={n: joint(j) for n, j in lk.roots.items()},
        tree_edge={n: e.name for n, e in lk.tree_edge.items()},
        gravity=arr(lk.gravity),
        poses={n: arr(T) for n, T in lk.poses().items()},
    )


def check_tree(lk: Linkage):
    """The spanning-tree invariants every mutation must keep (raises AssertionError).

    Every link has exactly one tree edge that is attached to it and flagged as tree; every
    tree-flagged joint is the tree edge of exactly one link; following tree parents from any
    link reaches the ground without a cycle; no joint refers to a missing link or connects a
    link to itself; root joints exist for exactly the links.
    """
    links = set(lk.links)
    assert set(lk.roots) == links, "root joints and links differ"
    assert set(lk.tree_edge) == links, "tree edges and links differ"
    for n, r in lk.roots.items():
        assert r.is_root and r.child == n and r.parent is None and r.jtype.name == "general"
    for name, j in lk.joints.items():
        assert j.name == name
        assert not j.is_root
        assert j.child in links, f"joint {name} has missing child {j.child}"
        assert j.parent is None or j.parent in links, f"joint {name} has missing parent {j.parent}"
        assert j.parent != j.child, f"joint {name} connects {j.child} to itself"
        assert j.tree_dir in (-1, 0, 1)
        assert j.q.shape == (j.dof,) and j.lower.shape == (j.dof,) and j.upper.shape == (j.dof,)
        if j.mimic is not None:
            assert j.mimic[0] in lk.joints, f"joint {name} mimics a missing joint"
    carried = {}
    for link, e in lk.tree_edge.items():
        assert e.is_tree, f"tree edge {e.name} of {link} is not flagged as tree"
        if e.is_root:
            assert lk.roots[link] is e
            assert e.tree_dir == 1
        else:
            assert lk.joints.get(e.name) is e, f"tree edge of {link} is not a joint of the linkage"
            below = e.child if e.tree_dir > 0 else e.parent
            assert below == link, f"tree edge {e.name} does not carry {link}"
        assert id(e) not in carried, f"{e.name} is the tree edge of two links"
        carried[id(e)] = link
    for j in list(lk.joints.values()) + list(lk.roots.values()):
        if j.is_tree:
            assert id(j) in carried, f"{j.name} is flagged tree but carries no link"
    for link in links:
        seen, cur = set(), link
        while cur is not None:
            assert cur not in seen, f"tree cycle through {cur}"
            seen.add(cur)
            cur = lk.tree_parent(cur)
    # The compiled model agrees.
    model = lk.model()
    assert set(n for n in model.link_names if n is not None) == links


def assert_poses_equal(before: dict, after: dict, atol=1e-12):
    assert set(before) == set(after)
    for n in before:
        np.testing.assert_allclose(after[n], before[n], atol=atol, rtol=0, err_msg=n)


def random_rotation(rng, max_angle=math.pi):
    axis = rng.normal(size=3)
    axis /= np.linalg.norm(axis)
    return se3.so3_exp(axis * rng.uniform(0, max_angle))


def random_pose(rng, scale=1.0, max_angle=math.pi):
    return se3.make_pose(random_rotation(rng, max_angle), rng.uniform(-scale, scale, 3))


def random_tree(rng, n_links=None, types=None, closures=0, max_closure_tries=20):
    """A random tree (chains and branches from the ground) of random joint types at random
    poses; then ``closures`` extra joints (closures, assembled: frames at the current pose)."""
    types = types or ("revolute", "prismatic", "helical", "cylindrical", "pin-slider",
                      "cartesian-2", "spherical", "planar", "cartesian-3", "point-slider",
                      "point-plane", "general", "fixed")
    n = n_links if n_links is not None else int(rng.integers(2, 7))
    lk = Linkage()
    names = [f"L{i}" for i in range(n)]
    for nm in names:
        lk.add_link(nm, pose=random_pose(rng, 1.0))
    for i, nm in enumerate(names):
        parent = None if i == 0 or rng.random() < 0.15 else names[int(rng.integers(0, i))]
        jt = types[int(rng.integers(len(types)))]
        lk.add_joint(f"J{i}", jt, parent, nm, T_parent_mob=random_pose(rng, 0.5),
                     T_child_frame=random_pose(rng, 0.5),
                     pitch=float(rng.uniform(0.05, 0.3)) if jt == "helical" else 0.0)
        dof = lk.joint(f"J{i}").dof
        if dof:
            lk.set_q(f"J{i}", rng.uniform(-1, 1, dof))
    for c in range(closures):
        a, b = rng.choice(n + 1, size=2, replace=False)
        parent = None if a == n else names[a]
        child = names[b] if b < n else names[a]
        if parent == child:
            continue
        jt = types[int(rng.integers(len(types)))]
        lk.add_joint(f"C{c}", jt, parent, child, world_frame=random_pose(rng, 1.0),
                     pitch=0.1 if jt == "helical" else 0.0)
    return lk


def circle_intersection(B, D, r_b, r_d, branch):
    """The point at distance r_b from B and r_d from D (2D), left (+1) or right (-1) of B->D."""
    v = np.asarray(D, float) - np.asarray(B, float)
    L = np.linalg.norm(v)
    u = v / L
    x = (r_b * r_b - r_d * r_d + L * L) / (2 * L)
    h = math.sqrt(max(r_b * r_b - x * x, 0.0))
    return np.asarray(B, float) + x * u + branch * h * np.array([-u[1], u[0]])


class FourBar:
    """A planar four-bar built from links and joints, in the plane z=0 of frame ``G``.

    Ground pivots A=(0,0) and D=(d,0); crank AB (length a), coupler BC (b), rocker DC (c).
    Each link's frame sits at its first pivot with x along the bar. Joints ``crank``
    (ground-crank at A), ``knee`` (crank-coupler at B), ``elbow`` (coupler-rocker at C) and
    ``ground`` (ground-rocker at D), all revolute about the plane normal, placed with
    ``world_frame``; the last becomes a closure by itself. The crank joint's q is the crank
    angle minus ``th0`` (the assembly angle).
    """

    def __init__(self, a=1.0, b=3.0, c=2.5, d=3.2, th0=0.3, branch=1, G=None, closure="revolute"):
        self.a, self.b, self.c, self.d, self.th0, self.branch = a, b, c, d, th0, branch
        self.G = np.eye(4) if G is None else G
        A, D = np.zeros(2), np.array([d, 0.0])
        B = self.B(th0)
        C = self.C(th0)
        def W(P, ang=0.0):
            return self.G @ planar_pose(P[0], P[1], ang)
        lk = Linkage()
        lk.add_link("crank", pose=W(A, th0))
        lk.add_link("coupler", pose=W(B, math.atan2(*(C - B)[::-1])))
        lk.add_link("rocker", pose=W(D, math.atan2(*(C - D)[::-1])))
        lk.add_joint("crank", "revolute", None, "crank", world_frame=W(A))
        lk.add_joint("knee", "revolute", "crank", "coupler", world_frame=W(B))
        lk.add_joint("elbow", "revolute", "coupler", "rocker", world_frame=W(C))
        lk.add_joint("ground", closure, None, "rocker", world_frame=W(D))
        self.lk = lk

    def B(self, th):
        return self.a * np.array([math.cos(th), math.sin(th)])

    def C(self, th):
        return circle_intersection(self.B(th), (self.d, 0.0), self.b, self.c, self.branch)

    def rocker_angle(self, th):
        """Analytic rocker angle (about the plane normal, from the ground line)."""
        C = self.C(th)
        return math.atan2(C[1], C[0] - self.d)

    def local(self, T):
        return np.linalg.solve(self.G, T)

    def measured_rocker_angle(self):
        return yaw(self.local(self.lk.pose("rocker")))

    def measured_crank_angle(self):
        return yaw(self.local(self.lk.pose("crank")))

    def potential(self, th, masses, gravity):
        """Gravity potential (J) of point masses at the links' frame origins + com offsets
        given as {link: (mass, com_in_link_frame_2d)} with gravity a 2D vector in the plane."""
        C, B = self.C(th), self.B(th)
        frames = {"crank": (np.zeros(2), th), "coupler": (B, math.atan2(*(C - B)[::-1])),
                  "rocker": (np.array([self.d, 0.0]), math.atan2(*(C - np.array([self.d, 0.0]))[::-1]))}
        U = 0.0
        for link, (m, com) in masses.items():
            o, ang = frames[link]
            p = o + np.array([[math.cos(ang), -math.sin(ang)], [math.sin(ang), math.cos(ang)]]) @ com
            U -= m * float(np.dot(gravity, p))
        return U


class SliderCrank:
    """Crank (a) about the origin, rod (b), slider on the line y = e along x; all in frame G.

    Joints ``crank`` and ``pin`` (revolute), ``wrist`` (revolute, rod-slider) and ``slide``
    (prismatic along x, ground-slider). ``closure`` names which of the last two is added last
    and so becomes the closure (the other is the slider's tree joint)."""

    def __init__(self, a=1.0, b=2.5, e=0.3, th0=0.4, branch=1, G=None, closure="slide"):
        self.a, self.b, self.e, self.th0, self.branch = a, b, e, th0, branch
        self.G = np.eye(4) if G is None else G
        B = self.a * np.array([math.cos(th0), math.sin(th0)])
        x = self.x(th0)
        def W(x_, y_, ang=0.0):
            return self.G @ se3.make_pose(se3.rot_z(ang), [x_, y_, 0.0])
        lk = Linkage()
        lk.add_link("crank", pose=W(0, 0, th0))
        lk.add_link("rod", pose=W(B[0], B[1], math.atan2(e - B[1], x - B[0])))
        lk.add_link("slider", pose=W(x, e))
        lk.add_joint("crank", "revolute", None, "crank", world_frame=W(0, 0))
        lk.add_joint("pin", "revolute", "crank", "rod", world_frame=W(*B))
        # Prismatic along +x: its mobility z axis is the world x axis.
        slide_frame = self.G @ se3.make_pose(se3.so3_exp([0, math.pi / 2, 0]), [0.0, e, 0.0])
        last = {"wrist": ("wrist", "revolute", "rod", W(x, e)),
                "slide": ("slide", "prismatic", None, slide_frame)}
        for name in sorted(last, key=lambda n: n == closure):
            jn, jt, parent, frame = last[name]
            lk.add_joint(jn, jt, parent, "slider", world_frame=frame)
        self.lk = lk

    def x(self, th):
        return self.a * math.cos(th) + self.branch * math.sqrt(
            self.b ** 2 - (self.a * math.sin(th) - self.e) ** 2)


def drag_crank(steps_deg, **settings):
    """Drag a :class:`FourBar`'s crank target by the increments ``steps_deg`` (degrees), one
    solve each with ``Settings(**settings)``; per solve: (status, crank angle, rocker angle,
    analytic rocker angle)."""
    fb = FourBar()
    solver = Solver(fb.lk, Settings(**settings))
    out, th = [], fb.th0
    for d in steps_deg:
        th += math.radians(d)
        fb.lk.set_target("crank", [th - fb.th0])
        status = solver.solve()
        out.append((status, fb.measured_crank_angle(), fb.measured_rocker_angle(),
                    fb.rocker_angle(th)))
    return out


def two_link(links=("thigh", "shin", "foot"), joints=("hip", "knee", "ankle"), q=(0.0, 0.0)):
    """A planar chain of two 1 m links: revolutes about z at (0, 0) and (1, 0), and an end link
    fixed at (2, 0); ``q`` sets the two revolutes (rad)."""
    lk = Linkage()
    lk.add_link(links[0])
    lk.add_link(links[1], pose=planar_pose(1, 0))
    lk.add_link(links[2], pose=planar_pose(2, 0))
    lk.add_joint(joints[0], "revolute", None, links[0], world_frame=np.eye(4))
    lk.add_joint(joints[1], "revolute", links[0], links[1], world_frame=planar_pose(1, 0))
    lk.add_joint(joints[2], "fixed", links[1], links[2], world_frame=planar_pose(2, 0))
    lk.set_q(joints[0], [q[0]])
    lk.set_q(joints[1], [q[1]])
    return lk


@pytest.fixture(scope="session")
def vh():
    """The helper namespace (see the module docstring)."""
    return SimpleNamespace(
        planar_pose=planar_pose, yaw=yaw, wrap=wrap, snapshot=snapshot, check_tree=check_tree,
        assert_poses_equal=assert_poses_equal, random_rotation=random_rotation,
        random_pose=random_pose, random_tree=random_tree, FourBar=FourBar, SliderCrank=SliderCrank, two_link=two_link,
        drag_crank=drag_crank,
        circle_intersection=circle_intersection,
    )
