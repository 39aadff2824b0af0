"""vart's operators, one family per module; each module has a ``classes`` tuple and
``register()`` / ``unregister()`` and is listed in ``vart_addon._SUBMODULES``.

- :mod:`.links`: make_links, add_virtual_link, make_ground_link, split_link, set_mass
- :mod:`.joints`: add_joint, remove_joint, set_joint_frame_from_cursor, change_joint_type,
  invert_joint, make_tree_joint, make_closure_joint, merge_joint
- :mod:`.goals`: lock, unlock, set_target, clear_target, set_posture, clear_posture,
  set_limits, set_stiffness
- :mod:`.solve`: operate_joint, solve
- :mod:`.animate`: drag, operate_joint_modal, key_pose, bake
- :mod:`.io`: import_urdf, export_urdf, save_preset, load_preset
- :mod:`.trajectory`: export_trajectory, import_trajectory
- :mod:`.checks`: check_clearance
- :mod:`.robot_setup`: place_on_ground, add_ignored_pair, remove_ignored_pair,
  clear_ignored_pairs
- :mod:`.examples`: add_example, key_joint

Each operator is thin: it maps the context (active link, selection, active joint, 3D cursor)
to one :func:`vart_addon.bridge.edits.edit` call, and reports bridge and solver errors
instead of raising (the scene is then unchanged). What they all do alike is :mod:`.support`;
what they share with panels and examples is :mod:`vart_addon.shared`.
"""

