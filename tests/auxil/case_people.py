"""The people of the cases tests — João (citizen), Maria, Clara (clerk), Inês (inspector), Otávio (ombudsman) —
and João's forms."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from sqlmodel.ext.asyncio.session import AsyncSession

from models.cases.filing import Author, OmbudsmanForm, Place, RepresentationForm
from models.cases.tables import OmbudsmanType, Relation
from models.people import PersonView, Role, add_staff, ensure_person

NOW = dt.datetime(2026, 3, 2, 14, 0, tzinfo=dt.UTC)  # Monday, 10:00 in Cuiabá


@dataclass(frozen=True)
class Cast:
    joao: PersonView
    maria: PersonView
    clara: PersonView
    ines: PersonView
    otavio: PersonView


async def _person(session: AsyncSession, telegram_id: int, name: str) -> PersonView:
    return await ensure_person(
        session=session, telegram_user_id=telegram_id, chat_id=telegram_id, first_name=name, language_code="pt-br"
    )


ANA = 7200
"""Ana, an admin (every municipality), for the tests that need one: :func:`make_cast` with ``with_admin``."""


async def make_cast(session: AsyncSession, *, with_admin: bool = False) -> Cast:
    """Create the people, and staff roles for Clara, Inês and Otávio (and Ana, admin, ``with_admin``)."""
    joao = await _person(session, 7001, "João")
    maria = await _person(session, 7002, "Maria")
    clara = await _person(session, 7101, "Clara")
    ines = await _person(session, 7102, "Inês")
    otavio = await _person(session, 7103, "Otávio")
    await add_staff(session=session, telegram_user_id=7101, role=Role.CLERK, name="Clara", actor="test")
    await add_staff(session=session, telegram_user_id=7102, role=Role.INSPECTOR, name="Inês", actor="test")
    await add_staff(session=session, telegram_user_id=7103, role=Role.OMBUDSMAN, name="Otávio", actor="test")
    if with_admin:
        await add_staff(session=session, telegram_user_id=ANA, role=Role.ADMIN, name="Ana", actor="test")
    return Cast(joao=joao, maria=maria, clara=clara, ines=ines, otavio=otavio)


JOAO = Author(name="João Batista Pereira", profession="Pedreiro", address="Rua das Flores, 123, Centro",
              cpf="52998224725")


def representation(**changes: object) -> RepresentationForm:
    """João's representação about rubbish thrown in the street (CP Tabela I item 9)."""
    values: dict[str, object] = {
        "author": JOAO,
        "facts": "Um caminhão despeja entulho e lixo na calçada toda sexta-feira.",
        "occurred_on": dt.date(2026, 2, 27),
        "place": Place(text="Rua 7 de Setembro, esquina com Av. Brasil"),
        "learned_how": "Vi pessoalmente",
        "relation": Relation.NONE,
        "infraction_code": "CP-I-9",
        "accused": "Depósito Bom Preço",
        "evidence_note": "Fotos com o vizinho da casa 12",
    }
    values.update(changes)
    return RepresentationForm(**values)  # type: ignore[arg-type]


def ombudsman(restricted: bool = True, **changes: object) -> OmbudsmanForm:
    """João's complaint to the Ouvidoria."""
    values: dict[str, object] = {
        "author": Author(name="João Batista Pereira"),
        "type": OmbudsmanType.COMPLAINT,
        "text": "O posto de saúde do bairro está sem médico há duas semanas.",
        "identity_restricted": restricted,
    }
    values.update(changes)
    return OmbudsmanForm(**values)  # type: ignore[arg-type]
