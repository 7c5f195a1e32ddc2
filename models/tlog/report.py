"""What ``notice verify`` reports: each problem, where it is and what broke (:mod:`models.tlog.verification`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True, slots=True)
class Problem:
    """One thing that does not verify: ``where`` (not translated) and a msgid with its parameters."""

    where: str
    problem: str
    params: dict[str, Any] = field(default_factory=dict)


@dataclass(slots=True)
class LogReport:
    """What :func:`verify_log` found."""

    entries: int = 0
    rows: int = 0
    heads: int = 0  # written out, kept elsewhere, the witness's
    kept: int = 0  # signed by the head job (tlog_head)
    problems: list[Problem] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """Whether everything verified."""
        return not self.problems
