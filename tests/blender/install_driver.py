"""Install, enable, disable and re-enable the vart zip in a fresh Blender.

Run as a script in its own process (bpy state is global to a process)::

    python install_driver.py ZIP_PATH

with HOME / BLENDER_USER_RESOURCES pointing at a throw-away folder. It goes
through Blender's own extension machinery, as a user would, and prints one
line ``VART_RESULT <json>`` for the calling test to check. It does not
assert anything itself, so the test can report every finding at once.
"""

from __future__ import annotations

import json
import sys

# isort: off
import bpy  # first: importing bpy puts Blender's script modules on sys.path
import addon_utils  # Blender's own module, importable after bpy
# isort: on

REPO = "user_default"
ADDON_KEY = f"bl_ext.{REPO}.vart"


def snapshot() -> dict:
    """What an add-on can leave behind in a Blender session, as plain data."""
    types = sorted(name for name in dir(bpy.types))
    properties = {}
    for name in types:
        rna = getattr(getattr(bpy.types, name), "bl_rna", None)
        if rna is not None:
            properties[name] = sorted(rna.properties.keys())
    handlers = {}
    for name in dir(bpy.app.handlers):
        value = getattr(bpy.app.handlers, name)
        if isinstance(value, list):
            handlers[name] = sorted(
                f"{getattr(f, '__module__', '?')}.{getattr(f, '__qualname__', repr(f))}"
                for f in value
            )
    keymaps = {}
    addon_keyconfig = bpy.context.window_manager.keyconfigs.addon
    if addon_keyconfig is not None:
        for keymap in addon_keyconfig.keymaps:
            keymaps[keymap.name] = sorted(item.idname for item in keymap.keymap_items)
    return {
        "types": types,
        "properties": properties,
        "handlers": handlers,
        "keymaps": keymaps,
        "addons": sorted(addon.module for addon in bpy.context.preferences.addons),
    }


def diff(before: dict, after: dict) -> dict:
    """Entries present in ``after`` but not in ``before`` (what was left behind)."""
    left = {}
    added_types = sorted(set(after["types"]) - set(before["types"]))
    if added_types:
        left["types"] = added_types
    for group in ("properties", "handlers", "keymaps"):
        for name, values in after[group].items():
            if group == "properties" and name in added_types:
                continue  # already reported as a left-over type
            extra = sorted(set(values) - set(before[group].get(name, ())))
            if extra:
                left.setdefault(group, {})[name] = extra
    added_addons = sorted(set(after["addons"]) - set(before["addons"]))
    if added_addons:
        left["addons"] = added_addons
    return left


def vart_named_leftovers() -> list[str]:
    """Registered types and handlers that carry vart's name."""
    found = [name for name in dir(bpy.types) if name.lower().startswith("vart")]
    for name in dir(bpy.app.handlers):
        value = getattr(bpy.app.handlers, name)
        if isinstance(value, list):
            found += [
                f"handler {name}: {f!r}"
                for f in value
                if "vart" in f"{getattr(f, '__module__', '')}.{getattr(f, '__name__', '')}".lower()
            ]
    return found


#: Each shipped package's import name, and a small job that shows it works: (what it does,
#: the expected answer).
SHIPPED = {
    "collada": lambda m: type(m.Collada()).__name__,                        # "Collada"
    "xacro": lambda m: m.process_doc.__name__,                              # "process_doc"
    "yaml": lambda m: repr(m.safe_load("a: [1, 2]")),                       # "{'a': [1, 2]}"
    "threadpoolctl": lambda m: _blas_found(m),                              # "openblas"
}


def _blas_found(threadpoolctl) -> str:
    """The BLAS library threadpoolctl finds under Blender's numpy (vart limits it to one
    thread while solving)."""
    import numpy  # noqa: F401  (loads numpy's BLAS library)
    return ",".join(lib["internal_api"] for lib in threadpoolctl.threadpool_info()
                    if lib["user_api"] == "blas")


def shipped_wheels() -> dict:
    """Per shipped package (:data:`SHIPPED`): where Blender installed its wheel (in the
    extensions' own site-packages, ``<user extensions>/.local/lib/python3.X/site-packages``),
    and what it answers in this Blender's Python as it is now. (A dev venv may hold the
    packages too: the installed file is what shows the wheel shipped.)"""
    import glob
    import importlib
    import os
    local = os.path.join(bpy.utils.user_resource("EXTENSIONS"), ".local")
    found: dict = {}
    for name, job in SHIPPED.items():
        site = os.path.join(local, "lib", "python*", "site-packages")
        hits = (glob.glob(os.path.join(site, name, "__init__.py"))
                or glob.glob(os.path.join(site, name + ".py")))  # a package or a module
        try:
            answer = job(importlib.import_module(name))
        except Exception as error:  # reported to the test, which fails on it
            answer = f"error: {error!r}"
        found[name] = {"origin": hits[0] if hits else None, "answer": answer}
    return found


def state() -> dict:
    """Whether the add-on is enabled, and where its module came from."""
    module = sys.modules.get(ADDON_KEY)
    return {
        "wheels": shipped_wheels(),
        "in_preferences": ADDON_KEY in bpy.context.preferences.addons,
        "addon_utils_check": list(addon_utils.check(ADDON_KEY)),
        "module_file": getattr(module, "__file__", None),
        "package_imported": f"{ADDON_KEY}.vart_addon" in sys.modules,
        "vart_named": vart_named_leftovers(),
    }


def run(operator, **kwargs) -> list[str]:
    """Call an operator; return its result set, or the error it raised."""
    try:
        return sorted(operator(**kwargs))
    except Exception as error:  # reported to the test, which fails on it
        return [f"error: {error}"]


def main(zip_path: str) -> dict:
    result: dict = {
        "user_extensions": bpy.utils.user_resource("EXTENSIONS"),
        "repo_directory": next(
            (repo.directory for repo in bpy.context.preferences.extensions.repos if repo.module == REPO),
            None,
        ),
    }
    before = snapshot()
    result["install"] = run(
        bpy.ops.extensions.package_install_files,
        filepath=zip_path, repo=REPO, enable_on_install=True,
    )
    result["after_install"] = state()

    result["disable_1"] = run(bpy.ops.preferences.addon_disable, module=ADDON_KEY)
    result["after_disable_1"] = state()
    result["leftovers_1"] = diff(before, snapshot())

    result["enable_2"] = run(bpy.ops.preferences.addon_enable, module=ADDON_KEY)
    result["after_enable_2"] = state()

    result["disable_2"] = run(bpy.ops.preferences.addon_disable, module=ADDON_KEY)
    result["after_disable_2"] = state()
    result["leftovers_2"] = diff(before, snapshot())
    return result


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(f"usage: {sys.argv[0]} ZIP_PATH")
    print("VART_RESULT " + json.dumps(main(sys.argv[1])), flush=True)
