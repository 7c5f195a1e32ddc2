"""axe-core (npm, pinned in tests/auxil/package.json; ``make axe`` runs ``npm ci --prefix tests/auxil``) run in
a page open in headless Chromium, for the WCAG 2.1 AA checks of the browser tests."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

AXE_JS = Path(__file__).resolve().parent / "node_modules" / "axe-core" / "axe.min.js"
WCAG_21_AA = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]


def require_axe() -> None:
    """Fail with how to install it when axe-core is missing (it is part of the test set-up, not optional)."""
    if not AXE_JS.exists():
        pytest.fail(f"axe-core is missing at {AXE_JS}: run `make axe` (npm ci --prefix tests/auxil)")


def axe_violations(driver: Any) -> list[dict[str, Any]]:
    """Run axe-core at WCAG 2.1 AA on the page open in ``driver``; return its violations (blocking: use a thread)."""
    driver.execute_script(AXE_JS.read_text(encoding="utf-8"))
    result = driver.execute_async_script(
        "const done = arguments[arguments.length - 1];"
        "axe.run(document, {runOnly: {type: 'tag', values: arguments[0]}})"
        ".then(r => done(r.violations.map(v => ({id: v.id, impact: v.impact, help: v.help,"
        " nodes: v.nodes.map(n => n.html)})))).catch(e => done([{id: 'axe-error', help: String(e)}]));",
        WCAG_21_AA,
    )
    return list(result)
