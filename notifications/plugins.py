"""Load every module of the ``notifications`` package, so all renderers, scans, audiences and topics register.

Areas put their message kinds, scans and audiences in modules of this package (``notifications/<area>_…py``);
nothing else needs to list them. The dispatcher, the scheduler, the CLI and the handlers call
:func:`load_all` before reading the registries.
"""

from __future__ import annotations

import importlib
import pkgutil

import notifications


def load_all() -> list[str]:
    """Import every submodule of ``notifications`` (idempotent); return their names."""
    names = []
    for module in pkgutil.walk_packages(notifications.__path__, prefix="notifications."):
        importlib.import_module(module.name)
        names.append(module.name)
    return names
