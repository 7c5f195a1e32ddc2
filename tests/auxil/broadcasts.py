"""A broadcast's sender in tests: the municipality that sends it, and every one served."""

from __future__ import annotations

from typing import Any

from core.municipality import cities_of
from core.settings import Settings


def sent_by(settings: Settings, slug: str | None = None) -> dict[str, Any]:
    """``city`` and ``cities`` for :func:`notifications.broadcasts.create_broadcast` (the default city for None)."""
    cities = cities_of(settings)
    return {"city": cities.of(slug), "cities": cities}
