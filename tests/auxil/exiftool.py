"""exiftool (Debian's libimage-exiftool-perl), as a real tool writing and reading metadata for the upload tests."""

from __future__ import annotations

import json
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Any

import pytest


def _exiftool() -> str:
    found = shutil.which("exiftool")
    if found is None:
        pytest.skip("exiftool is not installed (tests/auxil/system_deps.py installs it)")
    return found


def written(content: bytes, suffix: str, *tags: str) -> bytes:
    """``content`` after ``exiftool TAG=VALUE …`` wrote into it (as a phone or an editor would)."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / f"file.{suffix}"
        path.write_bytes(content)
        subprocess.run([_exiftool(), "-q", "-q", "-overwrite_original", *tags, str(path)], check=True,
                       capture_output=True, timeout=60)
        return path.read_bytes()


def read(content: bytes, suffix: str) -> dict[str, Any]:
    """Every tag exiftool finds (``-a -G1``, duplicates and unknown ones included), by ``group:name``."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / f"file.{suffix}"
        path.write_bytes(content)
        result = subprocess.run([_exiftool(), "-j", "-a", "-G1", "-u", str(path)], check=True, capture_output=True,
                                timeout=60)
    return dict(json.loads(result.stdout)[0])
