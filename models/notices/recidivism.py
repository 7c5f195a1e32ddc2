"""Recidivism (*reincidência específica*, CP Art. 8 par. único): an earlier notice of the same nature.

Art. 8 par. único: "Considera-se reincidente específico toda pessoa física ou jurídica que tiver cometido
infração da mesma natureza a este Código, já autuada ou punida". The Code does not define *natureza*; the
reading is ``BALCAO_CP_RECIDIVISM_NATURE`` (``docs/LEGAL-CHOICES.md``):

- ``artigo`` (default): the same article sets the fine. Each chapter of the Code closes with one article that
  fines every item of its table (Art. 53 for Tabela I, the *higiene das vias públicas*), so infractions fined by
  the same article are the ones the Code itself groups as being of one kind;
- ``capitulo``: the same chapter of the Code (the CSV's ``capitulo``), wider where a chapter has several tables;
- ``codigo``: only the same catalogue row (the narrowest reading).

Lei 1.533/2020 has its own repeat rules, each for one inciso (Art. 26 §§1–2, Art. 27 par. único): there the
earlier notice must be for the same catalogue row. The earlier notice is an auto de infração, not annulled, for
the same CPF/CNPJ or the same person, drawn up before the new infraction was **committed**: Art. 8 par. único
asks that the person was "já autuada" when committing it, so the new infraction's day is compared with the day the
earlier auto was drawn up (not the days the two autos were drawn up). Staff are shown which one it is.

CP Art. 57 §§1–3 has a first step of its own, the warning: the person must have been warned (or fined) under
Art. 57 itself before the new offence, on an auto or on a notificação preliminar (the preliminar an auto follows
counts as that warning). An auto under another article of the same nature doubles a fine (Art. 8) but is no
warning under Art. 57 (``docs/LEGAL-CHOICES.md``).
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from sqlalchemy import or_
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from core.municipality import Municipality
from models.fines import WARNING_FIRST
from models.notices.tables import Notice, NoticeOutcome, NoticeType
from models.rulebooks.catalogue import CP, Infraction, load_infractions


@dataclass(frozen=True, slots=True)
class Recidivism:
    """The earlier notices a new one rests on.

    Attributes:
        earlier: the latest earlier notice of the same nature (the recidivism rests on it), or None.
        earlier_fined: the latest of them that carried a fine (not a CP Art. 57 warning), or None.
        warned_by: for a row of CP Art. 57, the latest earlier notice under Art. 57 (a preliminar included):
            the first step of §1 was taken, so this offence is fined (§3). None elsewhere, or when there is none.
    """

    earlier: Notice | None = None
    earlier_fined: Notice | None = None
    warned_by: Notice | None = None

    @property
    def recidivist(self) -> bool:
        """Whether the person is a repeat offender (CP Art. 8; L1533 Art. 26 §§1–2, 27)."""
        return self.earlier is not None


def same_nature_codes(infraction: Infraction, city: Municipality) -> list[str]:
    """The catalogue codes of the same nature as ``infraction`` under ``BALCAO_CP_RECIDIVISM_NATURE``."""
    nature = city.readings.cp_recidivism_nature if infraction.rulebook == CP else "codigo"
    if nature == "codigo":
        return [infraction.code]
    rows = load_infractions(infraction.rulebook)
    if nature == "artigo":
        return [row.code for row in rows if row.article == infraction.article]
    return [row.code for row in rows if row.chapter == infraction.chapter]


async def find_recidivism(
    *,
    session: AsyncSession,
    city: Municipality,
    infraction: Infraction,
    offender_document: str | None,
    person_id: int | None,
    committed_before: dt.datetime,
    follows: Notice | None = None,
) -> Recidivism:
    """The earlier notices this one rests on, for this CPF/CNPJ or person, drawn up before the new infraction.

    Args:
        session: database session.
        city: the deployment (``BALCAO_CP_RECIDIVISM_NATURE``).
        infraction: the new notice's catalogue row.
        offender_document: the offender's CPF/CNPJ, if known.
        person_id: the offender as a person, if known.
        committed_before: when the new infraction was committed: the start of its day when the day is known
            apart from the drawing up, else the drawing up itself (CP Art. 8 par. único: "já autuada").
        follows: the notificação preliminar the new auto follows (CP Art. 28), if any.

    Returns:
        The latest earlier auto of the same nature, not annulled (Art. 8), the latest that carried a fine, and
        for CP Art. 57 the latest earlier notice under it (§1's warning).
    """
    who = []
    if offender_document:
        who.append(col(Notice.offender_document) == offender_document)
    if person_id is not None:
        who.append(col(Notice.person_id) == person_id)
    if not who:
        return Recidivism()
    standing = or_(col(Notice.outcome).is_(None), col(Notice.outcome) != NoticeOutcome.ANNULLED)
    earlier = list((await session.exec(
        select(Notice)
        .where(
            col(Notice.infraction_code).in_(same_nature_codes(infraction, city)),
            Notice.type == NoticeType.AUTO,
            col(Notice.drawn_up_at) < committed_before,  # CP Art. 8 par. único: "já autuada" when committing it
            standing,
            or_(*who),
        )
        .order_by(col(Notice.drawn_up_at).desc(), col(Notice.id).desc())
    )).all())
    fined = next((notice for notice in earlier if not notice.warning_only), None)
    warned_by = None
    if infraction.code in WARNING_FIRST:  # CP Art. 57 §1: warned under this provision, on any kind of notice
        warned_by = (await session.exec(
            select(Notice)
            .where(col(Notice.infraction_code).in_(WARNING_FIRST), col(Notice.drawn_up_at) < committed_before,
                   standing, or_(*who))
            .order_by(col(Notice.drawn_up_at).desc(), col(Notice.id).desc())
        )).first()
        if (follows is not None and follows.infraction_code in WARNING_FIRST
                and follows.outcome != NoticeOutcome.ANNULLED):
            warned_by = follows  # the preliminar this auto follows warned of the same offence (Art. 57 §1, Art. 28)
    return Recidivism(earlier=earlier[0] if earlier else None, earlier_fined=fined, warned_by=warned_by)
