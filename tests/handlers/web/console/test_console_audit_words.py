"""Every action the code records in the audit log has words in the console (handlers.web.console.audit_words), in
each of the three languages: a new ``record(action="…")`` without a name would reach the clerk as a code."""

from __future__ import annotations

import re
from pathlib import Path

from core.i18n import translator
from handlers.web.console.audit_words import ACTIONS, ENTITIES, in_words
from models.audit import AuditEvent
from models.cases.tables import EventKind
from models.notices.tables import FilingKind

ROOT = Path(__file__).resolve().parents[4]
LITERAL = re.compile(r'action\s*=\s*"([a-z0-9_]+\.[a-z0-9_.]+)"')
ENTITY = re.compile(r'entity\s*=\s*"([a-z0-9_]+)"')


def _sources() -> str:
    return "\n".join(path.read_text(encoding="utf-8") for package in ("models", "handlers", "notifications", "bot")
                     for path in (ROOT / package).rglob("*.py"))


def test_every_recorded_action_and_entity_has_words() -> None:
    text = _sources()
    recorded = set(LITERAL.findall(text)) | {f"case.{kind.value}" for kind in EventKind} | {
        f"notice.filing.{kind.value}" for kind in FilingKind}
    assert recorded - set(ACTIONS) == set()
    assert set(ENTITY.findall(text)) - set(ENTITIES) == set()


def test_an_entry_reads_in_the_readers_language() -> None:
    event = AuditEvent(actor="staff:7101", action="console.signin", entity="console_session", entity_id="3",
                       details={"days": None, "with_cpf": True, "locales": ["en", "pt_BR"]})
    for locale, expected in (("pt_BR", ("servidor 7101", "Entrou no painel", "Sessão no painel 3",
                                        "dias: —; com CPF: sim; idiomas: en e pt_BR")),
                             ("es", ("funcionario 7101", "Entró en el panel", "Sesión en el panel 3",
                                     "días: —; con CPF: sí; idiomas: en y pt_BR"))):
        words = in_words(translator(locale), event)
        assert (words.actor, words.action, words.entity, words.details) == expected
