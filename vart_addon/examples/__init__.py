"""Examples that ship: the robots of ``assets/`` and the four ATHLETE stories (README.md, "The
four stories"), each built into the current scene by :func:`add_example` (operator
``vart.add_example``, sidebar panel "Examples"). This module holds the catalogue
(:data:`EXAMPLES`) and :func:`add_example`; the examples are built in

- :mod:`.robots`: ``athlete``, ``fourbar``, ``slider_crank`` and ``stewart``, from ``assets/``;
- :mod:`.msim`: ``step_probe`` and ``truss_gripper``, MSim's analysis examples with their
  studies (models built in :mod:`.msim_models`, without Blender);
- :mod:`.tower`: ``tower``, generated; :mod:`.tower_abstract`: ``tower_abstract``, the same
  tower in blocks driven by virtual joints (MSim's kinematic abstraction);
- :mod:`.athlete_legs`: ``athlete_legs`` and ``camera_tilt_legs``, the hexapod and story 1
  with each leg a driven sublinkage;
- :mod:`.stories`: the four stories, built with vart's operators as a user would
  (:mod:`.steps`);
- :mod:`.quadruped`: ``go2_step``, Unitree Go2 (from the installed example-robot-data)
  balanced over three pinned feet while it lifts the fourth, built the same way;
- :mod:`.humanoid`: ``g1_lift_foot``, Unitree G1 (from the installed example-robot-data)
  shifting its weight onto its pinned left foot and lifting the right one;
- :mod:`.arm`: ``ur5_pick_place``, Universal Robots UR5 (from the installed
  example-robot-data) picking and placing along a tool's waypoints, Linear and Joint moves;
- :mod:`.common`: what they share (:class:`Built`, :class:`ExampleError`, poses, keying).

:func:`check_baked` (:mod:`.check`) checks a bake from the baked values, frame by frame (the
stories' tests and ``make demo`` use it).
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import bpy

from .arm import example_ur5_pick_place
from .athlete_legs import load_athlete_legs, story_camera_tilt_legs
from .check import check_baked
from .common import MECHANISM_FRAMES, Built, ExampleError, pose
from .humanoid import example_g1_lift_foot
from .msim import build_step_probe, build_truss_gripper
from .quadruped import example_go2_step
from .robots import (
    ANKLE_INCLINE,
    STANDING,
    WHEEL_RADIUS,
    contact,
    load_athlete,
    load_fourbar,
    load_slider_crank,
    load_stewart,
)
from .stories import (
    PINCH,
    PINCH_BALANCE,
    STORY_FRAMES,
    TRENCH,
    TRENCH_CLEARANCE,
    story_camera_tilt,
    story_inspection,
    story_pinch,
    story_trenching,
)
from .tower import build_tower
from .tower_abstract import build_tower_abstract

#: What callers outside this package use (the operator and panel, the demo, the tests).
__all__ = ["Example", "EXAMPLES", "ExampleError", "add_example", "check_baked", "STANDING",
           "ANKLE_INCLINE", "WHEEL_RADIUS", "MECHANISM_FRAMES", "STORY_FRAMES", "TRENCH",
           "TRENCH_CLEARANCE", "PINCH", "PINCH_BALANCE", "contact", "pose", "load_athlete"]


@dataclass(frozen=True)
class Example:
    key: str
    label: str
    description: str
    build: Callable[..., Built]
    story: bool = False
    study: bool = False  # comes with a study set up in the Study panel (Run Study)


EXAMPLES = {e.key: e for e in (
    Example("athlete", "ATHLETE Hexapod", "An ATHLETE-like hexapod standing on its six "
            "wheels: 36 real joints (6 limbs: hip yaw, hip pitch, knee, ankle pitch, ankle "
            "roll, wheel)", load_athlete),
    Example("athlete_legs", "ATHLETE Hexapod (legs as sublinkages)", "The hexapod with each "
            "leg a driven sublinkage: the deck is solved first, then each leg follows it",
            load_athlete_legs),
    Example("fourbar", "Four-Bar Linkage", "A crank-rocker closed by a revolute joint, its "
            "crank keyed through one turn", load_fourbar),
    Example("slider_crank", "Slider-Crank", "Crank, connecting rod and slider closed by a "
            "revolute joint, the crank keyed through one turn", load_slider_crank),
    Example("stewart", "Stewart Platform", "Six UPS legs closed at the platform by spherical "
            "joints: drag the platform", load_stewart),
    Example("tower", "Modular Tower", "90 stacked four-bar cells: 270 revolute tree joints "
            "and 90 closures", build_tower),
    Example("tower_abstract", "Tower (abstracted)", "The modular tower as 30 blocks of 3 "
            "cells, each a driven sublinkage following its virtual bend (revolute) and "
            "stretch (prismatic) joints; three bends and one stretch keyed",
            build_tower_abstract),
    Example("step_probe", "Study: Humanoid Probing a Step", "A compliant mini-humanoid "
            "(ROBOTIS OP3) on one foot lowers its heel onto a step of unknown height: the "
            "study sweeps the height (press Run Study in the Study panel)", build_step_probe,
            study=True),
    Example("truss_gripper", "Study: Gripper on an Uncertain Bar", "OP3's arms closed on a "
            "truss bar whose sideways position is uncertain: a Monte Carlo study (press Run "
            "Study in the Study panel)", build_truss_gripper, study=True),
    Example("camera_tilt", "Story 1: Camera Tilt", "Tilt the side camera about its own axis; "
            "the six pinned legs follow (virtual revolute deck-world, keyed 0 to 20 degrees)",
            story_camera_tilt, True),
    Example("camera_tilt_legs", "Story 1: Camera Tilt (legs as sublinkages)", "Story 1 on "
            "the hexapod whose legs are driven sublinkages: the tilt moves the deck, each leg "
            "then reaches its pinned wheel", story_camera_tilt_legs, True),
    Example("trenching", "Story 2: Trenching", "Leg 0's foot scoops along a virtual trench "
            "(prismatic keyed -0.9 to +0.4 m) while the deck stays flat",
            story_trenching, True),
    Example("inspection", "Story 3: Object Inspection", "A foot camera orbits a rock at a "
            "constant distance (virtual spherical joint, its target keyed)",
            story_inspection, True),
    Example("pinch", "Story 4: Bimanual Pinch", "Two limbs pinch a virtual object (virtual "
            "prismatic keyed 0 to -0.6 m, revolute locked)", story_pinch, True),
    Example("go2_step", "Go2: Lift a Leg", "Unitree Go2 (from example-robot-data, with its "
            "maker's limits) balanced over three pinned feet crouches, lifts its front right "
            "foot 8 cm and puts it down (needs example-robot-data installed)",
            example_go2_step, True),
    Example("g1_lift_foot", "G1: Lift a Foot", "Unitree G1 (from example-robot-data, with its "
            "maker's limits) shifts its weight onto its pinned left foot, lifts its right foot "
            "6 cm and puts it down, Balance on while it stands on one foot (needs "
            "example-robot-data installed)", example_g1_lift_foot, True),
    Example("ur5_pick_place", "UR5: Pick and Place", "Universal Robots UR5 (from "
            "example-robot-data, with its maker's limits) picks and places along its tool's "
            "waypoints: Linear approaches and retreats, Joint transfers (needs "
            "example-robot-data installed)", example_ur5_pick_place, True),
)}


def add_example(key: str, context=None) -> Built:
    """Build example ``key`` (see :data:`EXAMPLES`) into the context's scene, at the 3D
    cursor. Raises :class:`ExampleError` (or a bridge/import error) if it cannot."""
    context = context if context is not None else bpy.context
    if key not in EXAMPLES:
        raise ExampleError(f"no example {key!r}; examples: {', '.join(EXAMPLES)}")
    scene = context.scene
    before = {k: set(getattr(bpy.data, k)) for k in _DATA}
    frames = (scene.frame_start, scene.frame_end, scene.frame_current)
    try:
        return EXAMPLES[key].build(context)
    except BaseException:
        # nothing half-built stays behind: what the example added goes again
        for k in _DATA:
            coll = getattr(bpy.data, k)
            for x in [x for x in coll if x not in before[k]]:
                try:
                    coll.remove(x)
                except (ReferenceError, RuntimeError):
                    pass
        scene.frame_start, scene.frame_end = frames[:2]
        scene.frame_set(frames[2])
        from ..shared.bridge_cache import clear_bridge_cache
        clear_bridge_cache()
        raise


#: bpy.data collections an example adds to (emptied of its additions when it fails).
_DATA = ("objects", "meshes", "materials", "cameras", "actions", "collections")
