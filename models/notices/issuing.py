"""Issuing a notice (issue 6, item 3): check its elements, apply the fine, sign and write the PDF.

The elements are checked by :mod:`models.notices.elements`; the act is written by :mod:`models.notices.wording`.

The fine is :func:`models.fines.compute_fine` for the year of the infraction (``infraction_on``, recorded apart
from the drawing up; the drawing-up day when not given), doubled for a repeat offender of the Código de Posturas
(Art. 8: already cited — *autuado* — for an infraction of the same nature, read as
:mod:`models.notices.recidivism` says); the notice records the earlier notice it rests on. Rows charged per m²
(Tabela III) take the quantity; a first offence under CP Art. 57 is a warning without a fine.
"""

from __future__ import annotations

import datetime as dt
import hashlib
from dataclasses import dataclass, replace

from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from core.i18n import N_
from core.municipality import Cities, Municipality, Publication
from models.audit import record
from models.authorities import ActAuthor, NotCompetent
from models.columns import utcnow
from models.drivers.tables import Driver
from models.fines import (
    Consequence,
    Fine,
    FineError,
    MissingCatalogueValue,
    MissingUnitValue,
    compute_fine,
    per_square_metre,
    recidivism_consequences,
)
from models.notices.act_elements import (
    NoOfficeForNotices,
    office_for_notices,
)
from models.notices.authority import access_issue, past_issue_limit
from models.notices.chain import ISSUED, append_event, elements_digest
from models.notices.codes import code_hash, format_code, new_code
from models.notices.delivery import start_delivery
from models.notices.elements import (
    NoticeInput,
    NoticeRefused,
    Problem,
    check_elements,
    drawn_up_moment,
    element_articles,
)
from models.notices.optin import person_by_cpf
from models.notices.platform_delivery import start_platform_delivery
from models.notices.recidivism import Recidivism, find_recidivism
from models.notices.signing import sign_notice_pdf
from models.notices.tables import PROVISIONAL_NUMBER_PREFIX, Notice, NoticeType
from models.notices.windows import printed_defence_days
from models.notices.wording import render_pdf
from models.people import Person, Role, require_role
from models.rulebooks.catalogue import CP, L1533, LAW_TITLES, Infraction, get_infraction
from models.rulebooks.deadline_rules import DeadlineChoices

NUMBER_PREFIX = {NoticeType.PRELIMINAR: "NP", NoticeType.AUTO: "AI"}


async def resolve_person(
    *, session: AsyncSession, data: NoticeInput, optin_cpf: bool = True
) -> tuple[int | None, bool, list[Problem]]:
    """The person to deliver to: given by id or Telegram id, else found by CPF.

    A CPF is verified when a driver linked their account to the registry (``models.drivers``). Otherwise the one
    person who registered the CPF at an active electronic opt-in receives the notice in their chat at once
    (issue 20 §1, ``BALCAO_OPTIN_CPF_DELIVERY=chat``, ``docs/LEGAL-CHOICES.md`` #71), whichever entry point issues
    it; the issue event records that the person came from their own word. With ``staff`` (``optin_cpf`` False)
    that CPF only suggests the person on the staff list (:func:`models.notices.delivery.cpf_claimant`), linked
    after checking (:func:`models.notices.delivery.link_person`). Two people claiming one CPF find nobody.

    Returns:
        The person's id (or None), whether it was found by a CPF claimed at opt-in, and the problems.
    """
    if data.person_id is not None:
        if await session.get(Person, data.person_id) is None:
            return None, False, [Problem("person_id", N_("There is no person {id}"),
                                         params={"id": data.person_id})]
        return data.person_id, False, []
    if data.person_telegram_id is not None:
        person = (
            await session.exec(select(Person).where(Person.telegram_user_id == data.person_telegram_id))
        ).first()
        if person is None:
            return None, False, [Problem("person_telegram_id",
                                         N_("Nobody with Telegram id {id} has talked to the bot yet"),
                                         params={"id": data.person_telegram_id})]
        return person.id, False, []
    document = data.offender_document
    if document and len(document) == 11:
        driver = (
            await session.exec(select(Driver).where(Driver.cpf == document, col(Driver.person_id).is_not(None)))
        ).first()
        if driver is not None:
            return driver.person_id, False, []
        claimant = await person_by_cpf(session=session, cpf=document) if optin_cpf else None
        if claimant is not None:
            return claimant, True, []
    return None, False, []


async def require_issuer(*, session: AsyncSession, cities: Cities, city: Municipality, telegram_user_id: int,
                         rulebook: str | None, allowed: frozenset[Role]) -> None:
    """Check that a staff member may issue under a rulebook: a role in the municipality whose law it is.

    An inspector of Sapezal cannot draw up an auto under Nova Xavantina's Código de Posturas (CF Art. 30 I).

    Args:
        session: database session.
        cities: the deployment's municipalities.
        city: the member's municipality, where the role is checked while no rulebook is chosen.
        telegram_user_id: the staff member.
        rulebook: the law the notice applies, if chosen.
        allowed: the roles that may issue.

    Raises:
        PermissionDenied: no allowed role there.
    """
    await require_role(session=session, telegram_user_id=telegram_user_id, allowed=allowed,
                       municipality=city_for_rulebook(cities, rulebook, otherwise=city).slug)


def city_for_rulebook(cities: Cities, rulebook: str | None, *, otherwise: Municipality | None = None) -> Municipality:
    """The municipality whose law a notice applies: the notice is that Prefeitura's act (CF Art. 30 I).

    A rulebook is in force in at most one municipality of a deployment (checked at start); when it is in none,
    ``otherwise`` (the default municipality if not given) and :func:`check_elements` refuses the rulebook.
    """
    owner = cities.with_rulebook(rulebook) if rulebook else None
    return owner or otherwise or cities.default


def _fine(data: NoticeInput, infraction: Infraction, on: dt.date, recidivism: Recidivism, city: Municipality,
          articles: dict[str, str]) -> tuple[Fine | None, list[Problem]]:
    if per_square_metre(infraction) and (data.quantity is None or data.quantity <= 0):
        return None, [Problem("quantity", N_("{code} is charged per m²: give the area occupied"),
                              articles["fine"], {"code": infraction.code})]
    if city.config.unit_values_illustrative and not city.demo:
        # Issue 11 item 3: illustrative values (the demo's) never price a real fine.
        return None, [Problem("fine", N_("The values of {unit} for {city} are illustrative (the demo's): set the "
                                         "real ones in {setting} before issuing fines"), articles["fine"],
                              {"unit": infraction.unit, "city": city.name,
                               "setting": city.unit_value_setting(infraction.unit, on.year)})]
    try:
        fine = compute_fine(infraction=infraction, on=on, unit_values=city.unit_values,
                            recidivist=recidivism.recidivist, units=data.units, quantity=data.quantity,
                            prior_fine=recidivism.earlier_fined is not None,
                            warned=recidivism.warned_by is not None)  # CP Art. 57 §1: warned before, then fined
    except MissingUnitValue:
        # Issue 11 item 3: no fine until the value of the unit for that year is configured for that municipality.
        return None, [Problem("fine", N_("No value of {unit} for {year} is configured for {city}: set {setting} "
                                         "before issuing this fine"), articles["fine"],
                              {"unit": infraction.unit, "year": on.year, "city": city.name,
                               "setting": city.unit_value_setting(infraction.unit, on.year)})]
    except MissingCatalogueValue:
        return None, [Problem("units", N_("The published table lost the value of {code}: give the fine in units"),
                              articles["fine"], {"code": infraction.code})]
    except FineError as exc:  # its msgid and values: translated like every refusal
        return None, [Problem("fine", exc.message, articles["fine"], dict(exc.params))]
    return fine, []


LATE = "late"
"""The element of the refusal of an auto past Lei 1.533 Art. 22 §1 (the issuer may confirm, unless refused)."""


async def check_signing(
    *, session: AsyncSession, cities: Cities, rulebook: str, issuer_telegram_id: int, drawn_up_at: dt.datetime,
    now: dt.datetime, late_confirmed: bool = False,
) -> tuple[ActAuthor | None, list[Problem]]:
    """Who signs the act now, and what stops them (issue 18 §2): the same check for the preview and the issue.

    Returns:
        The signer (None when not designated) and the problems: not designated to draw up notices (CP Art. 12;
        L1533 Art. 17–18), or a Lei 1.533 auto past the 90 days of Art. 22 §1 and not confirmed (element
        :data:`LATE`) or refused by ``BALCAO_L1533_ISSUE_LIMIT=refuse``.
    """
    city = city_for_rulebook(cities, rulebook)
    try:
        signer = await access_issue(session=session, city=city, telegram_user_id=issuer_telegram_id)
    except NotCompetent as exc:
        return None, [Problem("issuer_name", exc.message, exc.citation, exc.params)]
    late = past_issue_limit(rulebook=rulebook, drawn_up_at=drawn_up_at, now=now, city=city)
    if late is None or (late_confirmed and city.readings.l1533_issue_limit == "confirm"):
        return signer, []
    days = (now.astimezone(city.tz).date() - drawn_up_at.astimezone(city.tz).date()).days
    message = (N_("This auto was drawn up {days} days ago: the law gives 90 days from the drawing up to deliver "
                  "it, and they are over.") if city.readings.l1533_issue_limit == "refuse" else
               N_("This auto was drawn up {days} days ago: the law gives 90 days from the drawing up to deliver "
                  "it. Confirm to issue it anyway."))
    return signer, [Problem(LATE, message, f"{LAW_TITLES[L1533]}, Art. 22, §1º", {"days": days})]


@dataclass(frozen=True, slots=True)
class IssuedNotice:
    """A notice just issued: the row, its verification code (shown once) and the PDF."""

    notice: Notice
    code: str
    pdf: bytes


@dataclass(frozen=True, slots=True)
class PreparedNotice:
    """A notice's elements checked and its fine computed, not yet issued (a preview for staff)."""

    infraction: Infraction
    drawn_up_at: dt.datetime
    person_id: int | None
    recidivist: bool
    fine: Fine
    consequences: tuple[Consequence, ...]
    recidivism_of: Notice | None = None  # the earlier notice of the same nature the recidivism rests on
    infraction_on: dt.date | None = None
    person_by_optin_cpf: bool = False  # the person is the one who typed the CPF at opt-in (LEGAL-CHOICES #71)


async def prepare(
    *, session: AsyncSession, cities: Cities, data: NoticeInput, now: dt.datetime | None = None
) -> PreparedNotice:
    """Check every element, find the person, decide recidivism (CP Art. 8) and compute the fine; writes nothing.

    Raises:
        NoticeRefused: with every missing or wrong element and its article.
    """
    moment = now or utcnow()
    city = city_for_rulebook(cities, data.rulebook)
    problems = check_elements(data, city)
    if problems:
        raise NoticeRefused(problems)
    assert data.type is not None and data.rulebook is not None and data.infraction_code is not None
    articles = element_articles(data.rulebook, data.type)
    try:
        office_for_notices(city.config)
    except NoOfficeForNotices:  # L9784 Art. 26 §1 III, §5: without where to act the intimação is null
        raise NoticeRefused([Problem("office", N_("{city} has no office in the municipalities file where the "
                                                  "person notified can appear: add one before issuing"),
                                     "Lei nº 9.784/1999, Art. 26, §1º, III",
                                     {"city": city.name})]) from None
    drawn_up_at = drawn_up_moment(data, city)
    if drawn_up_at > moment + dt.timedelta(minutes=5):
        raise NoticeRefused([Problem("drawn_up_on", N_("The day and hour it is drawn up are in the future"),
                                     articles["drawn_up_on"])])
    infraction = get_infraction(data.infraction_code)
    person_id, by_optin_cpf, person_problems = await resolve_person(
        session=session, data=data, optin_cpf=city.readings.optin_cpf_delivery == "chat")
    if person_problems:
        raise NoticeRefused(person_problems)
    preliminar = None
    if data.preliminar_id is not None:
        preliminar = await session.get(Notice, data.preliminar_id)
        if preliminar is None or preliminar.type is not NoticeType.PRELIMINAR or data.type is not NoticeType.AUTO:
            raise NoticeRefused([Problem("preliminar_id", N_("An auto can only follow a preliminary notice"),
                                         f"{LAW_TITLES[CP]}, Art. 28")])
    given_on = data.infraction_on or (committed_on(preliminar, city) if preliminar is not None else None)
    infraction_on = given_on or data.drawn_up_on
    if given_on is not None and data.drawn_up_on is not None and given_on > data.drawn_up_on:
        raise NoticeRefused([Problem("infraction_on", N_("The infraction cannot come after the day it is drawn up"),
                                     articles["drawn_up_on"])])
    # CP Art. 8 par. único: "já autuada" when the new infraction was committed (its day, or the drawing up).
    committed_before = (dt.datetime.combine(given_on, dt.time(), tzinfo=city.tz).astimezone(dt.UTC)
                        if given_on is not None else drawn_up_at)
    recidivism = await find_recidivism(session=session, city=city, infraction=infraction,
                                       offender_document=data.offender_document, person_id=person_id,
                                       committed_before=committed_before, follows=preliminar)
    fine, fine_problems = _fine(data, infraction, infraction_on or moment.date(), recidivism, city, articles)
    if fine is None:
        raise NoticeRefused(fine_problems)
    consequences = recidivism_consequences(infraction=infraction, recidivist=recidivism.recidivist,
                                           choices=DeadlineChoices.of(city.readings))
    # CP Art. 57 §3: a fine after the warning rests on that warning when no earlier auto makes it a repeat (Art. 8).
    rests_on = recidivism.earlier or (recidivism.warned_by if not fine.warning else None)
    return PreparedNotice(infraction=infraction, drawn_up_at=drawn_up_at, person_id=person_id,
                          recidivist=recidivism.recidivist, fine=fine, consequences=consequences,
                          recidivism_of=rests_on, infraction_on=given_on, person_by_optin_cpf=by_optin_cpf)


def committed_on(notice: Notice, city: Municipality) -> dt.date:
    """The day a notice's infraction was committed: its recorded day, else its drawing-up day (local time).

    An auto that follows a notificação preliminar (CP Art. 28) is for the infraction the preliminar found: the
    unit value of that day's year applies to it (CP Art. 12; ``docs/LEGAL-CHOICES.md`` #15).
    """
    return notice.infraction_on or notice.drawn_up_at.astimezone(city.tz).date()


async def issue_notice(
    *,
    session: AsyncSession,
    cities: Cities,
    publication: Publication,
    data: NoticeInput,
    actor: str,
    issuer_telegram_id: int,
    late_confirmed: bool = False,
    now: dt.datetime | None = None,
) -> IssuedNotice:
    """Issue a notice: check its elements, compute the fine, write the PDF, start its delivery; commits.

    Callers: the staff form in the bot, the staff API, ``python -m bot notice issue`` and the representation
    cases (an auto decided on a case: pass its ``case_id``). The caller checks the staff member's role; the act is
    signed here by that authenticated member, at the moment of issue (issue 18 §2), who must be designated to
    draw up notices in the municipality whose law it applies (:func:`models.notices.authority.access_issue`).
    The act names them (``issuer_name`` is their name; ``signer`` their role, office, matrícula and designation).

    Args:
        session: database session.
        cities: the deployment's municipalities (the notice is the act of the one whose law it applies).
        publication: the verification root printed on the PDF and the timestamp authority of its signature.
        data: the elements.
        actor: ``"staff:<telegram id>"``, ``"api"``, ``"cli"`` — for the audit log and the event chain.
        issuer_telegram_id: the authenticated staff member who issues and signs it.
        late_confirmed: the issuer confirmed issuing a Lei 1.533 auto past the 90 days of Art. 22 §1
            (``BALCAO_L1533_ISSUE_LIMIT=confirm``).
        now: the moment of issue (server time); now when omitted.

    Raises:
        NoticeRefused: with every missing or wrong element and its article; the issuer not designated to draw up
            notices; or an auto past the L1533 Art. 22 §1 limit (refused, or not confirmed).
    """
    moment = now or utcnow()
    city = city_for_rulebook(cities, data.rulebook)
    ready = await prepare(session=session, cities=cities, data=data, now=moment)
    assert data.type is not None and data.rulebook is not None
    signer, problems = await check_signing(session=session, cities=cities, rulebook=data.rulebook,
                                           issuer_telegram_id=issuer_telegram_id, drawn_up_at=ready.drawn_up_at,
                                           now=moment, late_confirmed=late_confirmed)
    if signer is None or problems:
        raise NoticeRefused(problems)
    late = past_issue_limit(rulebook=data.rulebook, drawn_up_at=ready.drawn_up_at, now=moment,
                            city=city)
    data = replace(data, issuer_name=signer.name)  # the signer is the authenticated member, never free text
    assert data.type is not None and data.rulebook is not None
    infraction, fine, recidivist = ready.infraction, ready.fine, ready.recidivist
    person_id, drawn_up_at, consequences = ready.person_id, ready.drawn_up_at, ready.consequences
    code = new_code()
    notice = Notice(
        number=PROVISIONAL_NUMBER_PREFIX + code_hash(code)[:16],
        municipality=city.slug,
        type=data.type,
        rulebook=data.rulebook,
        infraction_code=infraction.code,
        infraction_article=infraction.article,
        infraction_description=infraction.description,
        offender_name=str(data.offender_name).strip(),
        offender_document=data.offender_document or None,
        offender_address=(data.offender_address or "").strip() or None,
        person_id=person_id,
        place=str(data.place).strip(),
        drawn_up_at=drawn_up_at,
        facts=str(data.facts).strip(),
        witnesses=(data.witnesses or "").strip() or None,
        inspection_term=(data.inspection_term or "").strip() or None,
        issuer_name=str(data.issuer_name).strip(),
        issuer_telegram_id=issuer_telegram_id,
        fine_cents=int(fine.amount * 100),
        fine_units=str(fine.units),
        fine_unit=fine.unit,
        recidivist=recidivist,
        recidivism_of=ready.recidivism_of.id if ready.recidivism_of is not None else None,
        infraction_on=ready.infraction_on,
        quantity=str(fine.quantity) if fine.quantity is not None else None,
        warning_only=fine.warning,
        penalties="\n".join(f"{c.kind.value}|{c.article}" for c in consequences) or None,
        infringed_provision=(data.infringed_provision or "").strip() or None,
        issuer_authority=city.config.prefeitura,
        platform_name=(data.platform_name or "").strip() or None if data.rulebook == L1533 else None,
        defence_days=printed_defence_days(rulebook=data.rulebook, notice_type=data.type, city=city),
        payment_days=city.readings.l1533_payment_days if data.rulebook == L1533 else None,
        case_id=data.case_id,
        preliminar_id=data.preliminar_id,
        code_hash=code_hash(code),
        pdf=b"",
        pdf_sha256="",
        issued_at=moment,
        signer=signer.as_data(),
        signed_at=moment,
    )
    session.add(notice)
    await session.flush()
    assert notice.id is not None
    notice.number = f"{NUMBER_PREFIX[data.type]}-{data.drawn_up_on.year if data.drawn_up_on else moment.year}-" \
                    f"{notice.id:06d}"
    rendered = render_pdf(notice=notice, code=code, city=city, http_root=publication.http_root)
    pdf = await sign_notice_pdf(rendered, notice=notice, city=city, tsa_url=publication.tsa_url)
    notice.pdf, notice.pdf_sha256 = pdf, hashlib.sha256(pdf).hexdigest()
    session.add(notice)
    await session.flush()
    await append_event(session=session, notice_id=notice.id, kind=ISSUED, actor=actor, at=moment, data={
        "number": notice.number,
        "type": notice.type.value,
        "rulebook": notice.rulebook,
        "infraction_code": notice.infraction_code,
        "fine_cents": notice.fine_cents,
        "recidivist": recidivist,
        "recidivism_of": notice.recidivism_of,
        "case_id": notice.case_id,
        "elements_sha256": elements_digest(notice),
        "pdf_sha256": notice.pdf_sha256,
        "signed_by": issuer_telegram_id,
        **({"late_confirmed": True} if late is not None else {}),
        **({"person_by_optin_cpf": True} if ready.person_by_optin_cpf else {}),
    })
    await record(session=session, actor=actor, action="notice.issue", entity="notice", entity_id=str(notice.id),
                 details={"number": notice.number, "type": notice.type.value, "infraction": notice.infraction_code,
                          "case_id": notice.case_id})
    await start_delivery(session=session, city=city, notice=notice, actor=actor, http_root=publication.http_root,
                         now=moment)
    await start_platform_delivery(session=session, notice=notice, actor=actor, now=moment)  # L1533 Art. 22
    await session.commit()
    return IssuedNotice(notice=notice, code=format_code(code), pdf=pdf)
