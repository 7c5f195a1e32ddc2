"""The one check every decision and every issue of a notice goes through: competent, not impeded, motivated.

Zulip's ``access_*`` pattern: the chat, the staff API, the console and the CLI call these before acting, and
each refusal names its article.

- Competence (L9784 Art. 11): the act's kind (:data:`ACT_OF_FILING`) has an authority in the notice's
  municipality (``core.municipalities.Authorities``): autuar by a designated agent (CP Art. 12; L1533 Art.
  17–18), the first instance by the Chefe do Departamento (CP Art. 40; L1533 Art. 17), the appeal by the
  Prefeito or the authority the law names (CP Art. 43, 45). The appeal's decision cannot be delegated (Lei 9.784
  Art. 13 II): only a member who holds the second-instance competence himself decides it.
- Impediment (L9784 Art. 18 I; CF Art. 37, impessoalidade): the autuante does not judge a filing against
  their own auto, nor the agent who signed the notificação preliminar it follows; the first-instance decider
  does not decide the appeal against their own decision (the appeal goes to another, superior authority: Lei
  9.784 Art. 56 §1; CP Art. 43).
- Motivation (CP Art. 41; L9784 Art. 50): reasons shorter than ``BALCAO_DECISION_MIN_REASONS`` are refused.
"""

from __future__ import annotations

import datetime as dt

from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from core.i18n import N_
from core.municipalities import ActKind
from core.municipality import Cities, Municipality
from models.authorities import ActAuthor, NotCompetent, competent_author, holders_of
from models.calendar import BusinessCalendar
from models.deadlines import compute_deadline
from models.notices.tables import FilingKind, Notice, NoticeFiling
from models.people import Person, Role, StaffMember
from models.rulebooks.catalogue import CP, LAW_TITLES
from models.rulebooks.deadline_rules import DeadlineChoices

ACT_OF_FILING: dict[FilingKind, ActKind] = {
    FilingKind.DEFESA: "primeira_instancia",
    FilingKind.RECLAMACAO: "primeira_instancia",  # CP Art. 40
    FilingKind.RECURSO: "segunda_instancia",  # CP Art. 43, 45
}

IMPEDED_AUTUANTE = "Lei 9.784/1999, Art. 18, I; CF, Art. 37"
IMPEDED_FIRST_INSTANCE = "Lei 9.784/1999, Art. 13, II e Art. 56, §1º"


async def access_decision(*, session: AsyncSession, city: Municipality, filing: NoticeFiling, notice: Notice,
                          telegram_user_id: int) -> ActAuthor:
    """The author of the decision on ``filing``, if the caller is competent for it in ``city`` (the notice's).

    Raises:
        NotCompetent: not the competent authority (citing the provision that names it), the autuante of this
            notice (L9784 Art. 18 I; CF Art. 37), or, on an appeal, the one who decided the first instance
            (L9784 Art. 13 II, Art. 56 §1).
    """
    act = ACT_OF_FILING[filing.kind]
    municipality = city.config
    refusal = (N_("The appeal is decided by the {title} ({office}) in person; you do not hold that role here, and "
                  "it cannot be delegated.") if act == "segunda_instancia" else
               N_("This decision belongs to the {title} ({office}); you do not hold that role here."))
    try:
        author = await competent_author(session=session, telegram_user_id=telegram_user_id,
                                        municipality=municipality, act=act, refusal=refusal)
    except NotCompetent as exc:
        if act == "segunda_instancia":
            exc.citation = f"{exc.citation}; Lei 9.784/1999, Art. 13, II"
        raise
    if notice.issuer_telegram_id == telegram_user_id:
        raise NotCompetent(N_("You drew up this notice, so you cannot judge a filing against it: another "
                               "authority decides."), citation=IMPEDED_AUTUANTE)
    if telegram_user_id in await preliminar_signers(session=session, notice=notice):
        raise NotCompetent(N_("You drew up the preliminary notice this auto follows, so you cannot judge a filing "
                               "against the auto: another authority decides."), citation=IMPEDED_AUTUANTE)
    if act == "segunda_instancia" and telegram_user_id in await first_instance_deciders(session=session,
                                                                                       notice_id=notice.id or 0):
        raise NotCompetent(N_("You decided the first instance of this notice, so you cannot decide the appeal "
                               "against your own decision."), citation=IMPEDED_FIRST_INSTANCE)
    return author


async def preliminar_signers(*, session: AsyncSession, notice: Notice) -> set[int]:
    """Who signed the notificação preliminar an auto follows (CP Art. 28–29): a party to the same act.

    The auto that follows a preliminar punishes the infraction that agent found and intimated (Art. 24, 29): a
    reclamação against the auto is "contra a ação dos agentes fiscais" (Art. 40) that includes theirs, so they have
    an interest in the matter (L9784 Art. 18 I; CF Art. 37) whoever signed the auto
    (``docs/LEGAL-CHOICES.md`` #77).
    """
    if notice.preliminar_id is None:
        return set()
    preliminar = await session.get(Notice, notice.preliminar_id)
    if preliminar is None or preliminar.issuer_telegram_id is None:
        return set()
    return {preliminar.issuer_telegram_id}


async def first_instance_deciders(*, session: AsyncSession, notice_id: int) -> set[int]:
    """The Telegram ids of whoever decided a first-instance filing of the notice."""
    decided = (await session.exec(
        select(NoticeFiling.decided_by, NoticeFiling.decider).where(
            NoticeFiling.notice_id == notice_id, NoticeFiling.kind != FilingKind.RECURSO,
            col(NoticeFiling.decided_at).is_not(None))
    )).all()
    ids = set()
    for decided_by, decider in decided:
        if decider and decider.get("telegram_user_id"):
            ids.add(int(decider["telegram_user_id"]))
        elif decided_by and decided_by.startswith("staff:") and decided_by[6:].isdigit():
            ids.add(int(decided_by[6:]))
    return ids


async def deciders_to_warn(*, session: AsyncSession, notice: Notice, filing: NoticeFiling) -> list[int]:
    """The person ids of the staff who may decide ``filing``: warned of its deadline, nobody else.

    Those holding the act's competence in the notice's municipality (CP Art. 40: the Chefe for the first instance;
    Art. 43, 45: the Prefeito for the appeal), less the impeded: the autuante (L9784 Art. 18 I) and, on an
    appeal, whoever decided the first instance (Art. 13 II, 56 §1). When nobody may decide it, the municipality's
    admins are told instead, so that someone designates the authority before the deadline passes
    (docs/LEGAL-CHOICES.md #64).
    """
    deciders = set(await holders_of(session=session, municipality=notice.municipality,
                                    act=ACT_OF_FILING[filing.kind]))
    deciders.discard(notice.issuer_telegram_id or 0)
    deciders -= await preliminar_signers(session=session, notice=notice)
    if filing.kind is FilingKind.RECURSO:
        deciders -= await first_instance_deciders(session=session, notice_id=notice.id or 0)
    if not deciders:
        deciders = set((await session.exec(
            select(StaffMember.telegram_user_id).where(
                StaffMember.active == True, StaffMember.role == Role.ADMIN,  # noqa: E712
                col(StaffMember.municipality).is_(None) | (col(StaffMember.municipality) == notice.municipality))
        )).all())
    people = (await session.exec(
        select(Person.id).where(col(Person.telegram_user_id).in_(deciders)).order_by(col(Person.id)))).all()
    return [person_id for person_id in people if person_id is not None]


async def may_decide(*, session: AsyncSession, cities: Cities, filing_id: int,
                     telegram_user_id: int) -> ActAuthor | None:
    """Before asking for the reasons: whether the caller may decide this pending filing (None: no such filing).

    Raises:
        NotCompetent: as :func:`access_decision`.
    """
    filing = await session.get(NoticeFiling, filing_id)
    notice = await session.get(Notice, filing.notice_id) if filing is not None else None
    if filing is None or notice is None or filing.decided_at is not None:
        return None
    return await access_decision(session=session, city=cities.of(notice.municipality), filing=filing,
                                 notice=notice, telegram_user_id=telegram_user_id)


def check_motivation(text: str, city: Municipality) -> str:
    """The decision's reasons, if they are reasons (CP Art. 41; L9784 Art. 50: explicit, clear motivation).

    Raises:
        NotCompetent: empty, or shorter than ``BALCAO_DECISION_MIN_REASONS`` characters.
    """
    reasons = " ".join(text.split())
    if len(reasons) < city.readings.decision_min_reasons:
        raise NotCompetent(
            N_("Write the reasons of the decision and its effects, in at least {n} characters: a word like \"ok\" "
               "is no motivation."),
            citation=f"{LAW_TITLES[CP]}, Art. 41; Lei 9.784/1999, Art. 50", n=city.readings.decision_min_reasons)
    return text.strip()


async def access_issue(*, session: AsyncSession, city: Municipality, telegram_user_id: int) -> ActAuthor:
    """The signer of a notice in ``city`` (whose law it applies): the caller, if designated to draw up notices there.

    Raises:
        NotCompetent: no autuar competence in the municipality whose law it is (CP Art. 12; L1533 Art. 17–18).
    """
    return await competent_author(
        session=session, telegram_user_id=telegram_user_id, municipality=city.config, act="autuar",
        refusal=N_("Only an agent designated to draw up notices ({title}, {office}) may issue it, and you are not "
                   "designated here."))


def past_issue_limit(*, rulebook: str, drawn_up_at: dt.datetime, now: dt.datetime,
                     city: Municipality) -> dt.date | None:
    """The last day of L1533 Art. 22 §1 (90 days from the drawing up) when it is already past, else None.

    Counted as every deadline is (rule ``l1533-22-entrega``, the reading from the lavratura, as the console's
    delivery list counts it): in days from the drawing-up day in the municipality's time, that day not counted,
    the 90th day included to its end, moved to the next business day when the office is closed on it (CC Art.
    132 caput and §1; L9784 Art. 66 §1). Not 90 × 24 hours from the hour of the drawing up.
    """
    if rulebook == CP:
        return None
    lavratura = drawn_up_at.astimezone(city.tz).date()
    last = compute_deadline(rule_id="l1533-22-entrega", start=lavratura, calendar=BusinessCalendar.of(
        city), choices=DeadlineChoices.of(city.readings), reading="lavratura").final_date
    return last if now.astimezone(city.tz).date() > last else None
