"""The sidebar (3D viewport, N panel, tab "Vart").

Modules, registered in this order (and unregistered in reverse):

- :mod:`.rows`: the joint list's runtime rows (``WindowManager.vart_joint_rows``) and the
  handlers that keep them in sync;
- :mod:`.live`: ``Scene.vart_live``, the DoF sliders and link mass fields (get/set, never
  stored);
- :mod:`.joints`: the joint UIList, the Joints and Active Joint panels;
- :mod:`.scene`: the Active Link, Solver and Scene (gravity, overlay toggle) panels;
- :mod:`.sublinkages`: the Sublinkages panel (the scene's sublinkage collections, their
  dispositions) and ``Collection.vart_disposition``;
- :mod:`.tools`: the Tool and Waypoints panel (the active link as a tool, its waypoints);
- :mod:`.arms`: the Arm Configurations panel (Find Solutions, the list, Preview and Apply);
- :mod:`.animation`: the Animation panel (drag, Key Pose, Bake, trajectory export and import,
  the last bake's outcome);
- :mod:`.checks`: the Will It Run? panel (clearance check, the last check's contacts);
- :mod:`.studies`: the Study panel (the swept joint, sampling, contacts; Run Study);
- :mod:`.examples`: the Examples panel (Add Example, Key Joint) and Shift+A > Vart Example.

The panels need ``Scene.vart`` (``vart_addon.properties``), so register this package after it;
they stay hidden (poll) while it is missing.
"""

import importlib

_MODULES = ("rows", "live", "joints", "scene", "sublinkages", "tools", "arms", "animation",
            "checks", "studies", "examples")
_registered: list = []


def register():
    for name in _MODULES:
        module = importlib.import_module(f"{__name__}.{name}")
        try:
            module.register()
        except BaseException:
            unregister()
            raise
        _registered.append(module)


def unregister():
    first = None
    while _registered:
        module = _registered.pop()
        try:
            module.unregister()
        except BaseException as e:
            first = first or e
    if first is not None:
        raise first
