"""The hexapod with each leg a driven sublinkage (examples ``athlete_legs`` and
``camera_tilt_legs``): MSim's hierarchy on ATHLETE. Each limb's six links (hip, thigh, shin,
ankle, foot, wheel, with its joints and the goals on them: a story's wheel pins) are the
collection ``leg{k}``, a *driven* sublinkage nested in the robot's collection. The deck (and
whatever a story adds to it) is the top: it is solved first, then each leg follows it on its
own, as a unit that cannot push the deck back."""
from __future__ import annotations

from ..bridge import sublinkages as SL
from .common import Built
from .robots import load_athlete
from .stories import story_camera_tilt

#: A limb's links, from the deck out (the asset's ``leg{k}_{part}`` names).
LEG_PARTS = ("hip", "thigh", "shin", "ankle", "foot", "wheel")
LEGS = 6


def legs_as_sublinkages(scene, built: Built) -> list:
    """Make each leg of the hexapod ``built`` a driven sublinkage ``leg{k}`` (collections
    nested in the robot's); returns the collections, leg 0 first."""
    return [SL.make_sublinkage(scene, [built.links[f"leg{k}_{p}"] for p in LEG_PARTS],
                               f"leg{k}", "driven") for k in range(LEGS)]


def load_athlete_legs(context) -> Built:
    """The standing hexapod (:func:`.robots.load_athlete`), its legs driven sublinkages."""
    built = load_athlete(context)
    legs_as_sublinkages(context.scene, built)
    built.key = "athlete_legs"
    return built


def story_camera_tilt_legs(context) -> Built:
    """Story 1 (:func:`.stories.story_camera_tilt`) on the hexapod whose legs are driven
    sublinkages: the tilt moves the deck first, then each leg reaches its pinned wheel."""
    built = story_camera_tilt(context)
    legs_as_sublinkages(context.scene, built)
    built.key = "camera_tilt_legs"
    return built
