"""Response templates: replies staff reuse, one text per language, sent in the reader's language.

A text may hold placeholders ``{protocol}``, ``{received_on}`` and ``{due_on}``, filled for each case. Only these
names are replaced (anything else in braces stays as typed), so a template can never reach into the program.

A template belongs to one municipality (CF Art. 30: each city hall speaks for itself): it is offered, changed and
retired only by that municipality's staff, and used only on its cases (:func:`template_for`).
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Collection, Mapping

from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from core.i18n import DEFAULT_LOCALE, N_, SUPPORTED_LOCALES, translator
from models.audit import record
from models.cases.fields import clean_text
from models.cases.tables import Case
from models.cases.timeline import get_author
from models.console.tables import ResponseTemplate
from models.invalid_input import InvalidInput
from models.people import Person

PLACEHOLDERS = ("protocol", "received_on", "due_on")
_PLACEHOLDER = re.compile(r"\{(" + "|".join(PLACEHOLDERS) + r")\}")


async def list_templates(*, session: AsyncSession, municipalities: Collection[str]) -> list[ResponseTemplate]:
    """The active templates of these municipalities, by name (then municipality)."""
    statement = select(ResponseTemplate).where(ResponseTemplate.active == True,  # noqa: E712
                                               col(ResponseTemplate.municipality).in_(list(municipalities)))
    return list((await session.exec(statement.order_by(col(ResponseTemplate.name),
                                                       col(ResponseTemplate.municipality)))).all())


async def template_for(*, session: AsyncSession, template_id: int, municipality: str) -> ResponseTemplate | None:
    """An active template of ``municipality`` (a case's), or None: another city's is never used (CF Art. 30)."""
    template = await session.get(ResponseTemplate, template_id)
    if template is None or not template.active or template.municipality != municipality:
        return None
    return template


async def save_template(
    *, session: AsyncSession, template_id: int | None, name: str, texts: Mapping[str, str], actor: str,
    now: dt.datetime, municipality: str,
) -> ResponseTemplate:
    """Create or change a template of a municipality (audited); Portuguese is required, the others fall back to it.

    Args:
        session: database session (committed here).
        template_id: the template to change, or None for a new one (another municipality's is refused).
        name: its name, unique in the municipality.
        texts: one text per locale.
        actor: who, for the audit log.
        now: the moment.
        municipality: the municipality whose staff write it (checked by the caller against the member's roles).

    Raises:
        InvalidInput: no name, no Portuguese text, a text too long, a name already used there, or another
            municipality's template.
    """
    clean_name = clean_text(name, min_length=3, max_length=80)
    cleaned = {locale: clean_text(text, min_length=10, max_length=3500) for locale, text in texts.items()
               if locale in SUPPORTED_LOCALES and text.strip()}
    if DEFAULT_LOCALE not in cleaned:
        raise InvalidInput(N_("Write at least the Portuguese text."))
    clash = (await session.exec(select(ResponseTemplate).where(ResponseTemplate.name == clean_name,
                                                               ResponseTemplate.municipality == municipality))).first()
    if clash is not None and clash.id != template_id:
        raise InvalidInput(N_("Another template already has that name."))
    template = await session.get(ResponseTemplate, template_id) if template_id is not None else None
    if template is not None and template.municipality != municipality:
        raise InvalidInput(N_("This template belongs to another municipality."))
    if template is None:
        template = ResponseTemplate(name=clean_name, texts=cleaned, updated_at=now, municipality=municipality)
        session.add(template)
        action = "template.add"
    else:
        template.name, template.texts, template.updated_at, template.active = clean_name, cleaned, now, True
        action = "template.update"
    await session.flush()
    await record(session=session, actor=actor, action=action, entity="response_template",
                 entity_id=str(template.id), details={"locales": sorted(cleaned), "municipality": municipality})
    await session.commit()
    return template


async def retire_template(*, session: AsyncSession, template_id: int, actor: str, now: dt.datetime,
                          municipalities: Collection[str]) -> None:
    """Stop offering a template of one of ``municipalities`` (kept for the audit trail of the replies that used it)."""
    template = await session.get(ResponseTemplate, template_id)
    if template is None or not template.active or template.municipality not in municipalities:
        return
    template.active = False
    template.updated_at = now
    await record(session=session, actor=actor, action="template.retire", entity="response_template",
                 entity_id=str(template_id))
    await session.commit()


async def reader_locale(*, session: AsyncSession, case_id: int) -> str:
    """The language of the person who filed a case (who reads the reply)."""
    author = await get_author(session=session, case_id=case_id)
    person = await session.get(Person, author.person_id)
    return person.locale if person is not None else DEFAULT_LOCALE


def fill(template: ResponseTemplate, *, locale: str, case: Case, timezone: str) -> str:
    """The template's text in ``locale`` (Portuguese if it has none) with the case's placeholders filled."""
    text = str(template.texts.get(locale) or template.texts.get(DEFAULT_LOCALE) or "")
    tr = translator(locale, timezone)
    values = {
        "protocol": case.protocol,
        "received_on": tr.date(case.received_at.astimezone(tr.tz).date()),
        "due_on": tr.date(case.due_on),
    }
    return _PLACEHOLDER.sub(lambda match: values[match.group(1)], text)
