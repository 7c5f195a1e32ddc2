"""The layer contract of DESIGN.md (``[tool.importlinter]`` in pyproject.toml) holds, and it bites.

``make test`` runs ``lint-imports`` on the tree; these tests show the contract is kept today and that each kind of
forbidden import breaks it (the graph is built from a copy of the packages, with one import added).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("core", "models", "notifications", "handlers", "bot")
LINT_IMPORTS = Path(sys.executable).with_name("lint-imports")


def _lint(tree: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(tree)}
    return subprocess.run([str(LINT_IMPORTS), "--config", str(tree / "pyproject.toml"), "--no-cache"],
                          cwd=tree, env=env, capture_output=True, text=True, timeout=300, check=False)


@pytest.fixture(scope="module")
def tree_copy(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tree = tmp_path_factory.mktemp("layers")
    for package in PACKAGES:
        shutil.copytree(ROOT / package, tree / package, ignore=shutil.ignore_patterns("__pycache__", "*.mo"))
    shutil.copy(ROOT / "pyproject.toml", tree / "pyproject.toml")
    return tree


def test_the_tree_keeps_every_contract() -> None:
    result = _lint(ROOT)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "0 broken" in result.stdout


@pytest.mark.parametrize(("module", "line", "contract"), [
    # base <- models: the domain does not reach up into the outbound layer
    ("models/people.py", "import notifications.outbox_claims", "Layers"),
    # base modules import no layer at all
    ("core/settings.py", "import models.people", "Layers"),
    # chat and web handlers do not import each other
    ("handlers/web/console/drivers.py", "import handlers.chat.drivers", "Chat and web handlers"),
    # the form engine knows no conversation area
    ("handlers/chat/engine/spec.py", "import handlers.chat.representation", "The form engine"),
    # the domain is free of Telegram and aiohttp
    ("models/drafts.py", "import telegram", "Telegram"),
    # only the engine reads or writes drafts, or claims a submission (issue 19 §1)
    ("handlers/chat/start.py", "from models.drafts import discard_draft", "Only the form engine"),
    ("handlers/chat/notice_filing.py", "from models import drafts", "Only the form engine"),
    ("handlers/web/console/cases.py", "from models.drafts import claim_submission", "Only the form engine"),
    ("handlers/chat/my_data.py", "from handlers.chat.engine.drafts import save", "Only the form engine"),
    # a notice's domain takes its municipality, never the deployment's settings (issue 19 §3)
    ("models/notices/status.py", "from core.settings import Settings", "take no Settings"),
    ("notifications/notice_scans.py", "import core.settings", "take no Settings"),
    ("notifications/broadcasts.py", "from core.settings import Settings", "take no Settings"),
    ("models/cases/filing.py", "from core import settings", "take no Settings"),
])
def test_a_forbidden_import_breaks_the_contract(tree_copy: Path, module: str, line: str, contract: str) -> None:
    target = tree_copy / module
    original = target.read_text(encoding="utf-8")
    try:
        target.write_text(original + f"\n{line}  # added by the test\n", encoding="utf-8")
        result = _lint(tree_copy)
    finally:
        target.write_text(original, encoding="utf-8")
    assert result.returncode != 0
    broken = [row for row in result.stdout.splitlines() if " BROKEN" in row]  # "BROKEN (4 ignored imports)"
    assert any(contract in row for row in broken), result.stdout


def test_the_engine_itself_may_read_and_write_drafts(tree_copy: Path) -> None:
    """The drafts contract exempts every module of the engine, not only the ones that use drafts today."""
    target = tree_copy / "handlers/chat/engine/edits.py"
    original = target.read_text(encoding="utf-8")
    try:
        target.write_text(original + "\nfrom models.drafts import get_draft  # added by the test\n", encoding="utf-8")
        result = _lint(tree_copy)
    finally:
        target.write_text(original, encoding="utf-8")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Only the form engine reads or writes drafts KEPT" in result.stdout
