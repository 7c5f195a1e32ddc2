from __future__ import annotations

from pathlib import Path

import pytest

from core.settings import Settings
from tests.auxil.drivers import settings_without_database


@pytest.fixture
def rules(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Settings:
    """Default settings without a database (for the pure status rules)."""
    return settings_without_database(tmp_path, monkeypatch)
