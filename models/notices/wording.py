"""The issued act in words: its fine, deadlines, sanctions and signature, and its official PDF.

Written in the document's language (:data:`DOCUMENT_LOCALE`) for the PDF, and in the reader's for the chat and the
console, from the stored :class:`~models.notices.tables.Notice` alone.
"""

from __future__ import annotations

from decimal import Decimal

from core.i18n import N_, Translator, translator
from core.municipality import Municipality
from models.authorities import ActAuthor
from models.encarregado import encarregado_line
from models.fines import (
    CONSEQUENCE_LABELS,
    WARNING_FIRST,
    ConsequenceKind,
)
from models.notices.act_elements import (
    appear_line,
    goes_on_line,
    office_for_notices,
    provision_lines,
    receipt_lines,
    where_to_act_lines,
)
from models.notices.codes import format_code
from models.notices.pdf import PdfContext, money_of, render_notice_pdf
from models.notices.tables import Notice, NoticeType
from models.notices.windows import NO_DEPOSIT, choices_for
from models.payments.instructions import payment_instructions
from models.payments.pdf_block import payment_flowables
from models.rulebooks.catalogue import CP, L1533, LAW_TITLES, get_infraction
from models.rulebooks.deadline_rules import START_EVENT_LABELS, Unit, get_rule, unit_phrase

DOCUMENT_LOCALE = "pt_BR"
"""The language of the official document (the PDF)."""


ILLUSTRATIVE_FINE = N_("Demonstration: the unit values are illustrative, this is not a real fine.")
"""Said on every fine the demo issues (issue 11 item 3)."""


def fine_detail(notice: Notice, tr: Translator) -> str:
    """The fine as the document and the messages state it: units, area, amount, doubling, or the warning."""
    if notice.warning_only:
        return tr._("Warning (advertência), no fine: a first offence (Art. 57, §1º). A repeat is fined and "
                    "reported to the authorities (Art. 57, §3º).")
    text = tr._("{amount} ({units} {unit})").format(
        amount=tr.money(money_of(notice.fine_cents)), units=tr.number(Decimal(notice.fine_units)),
        unit=notice.fine_unit)
    if notice.quantity is not None:
        text += " — " + tr._("{quantity} m² of public road").format(quantity=tr.number(Decimal(notice.quantity)))
    if notice.recidivist and notice.rulebook == CP and not _first_fine_after_warning(notice):
        text += " — " + tr._("doubled for repeat offence (Art. 8)")
    return text


def _first_fine_after_warning(notice: Notice) -> bool:
    """CP Art. 57 §3: the fine after the warning is the table value, not doubled (``docs/LEGAL-CHOICES.md`` #13)."""
    if notice.infraction_code not in WARNING_FIRST:
        return False
    base = get_infraction(notice.infraction_code).units
    return base is not None and Decimal(notice.fine_units) == base * Decimal(notice.quantity or 1)


def deadline_lines(notice: Notice, city: Municipality, tr: Translator) -> list[str]:
    """The deadline element (CP Art. 25 VI) or the intimação (CP Art. 34 IV; L1533 Art. 22), in words."""
    choices = choices_for(notice, city)
    if notice.rulebook == L1533:
        rules = ["l1533-22-defesa", "l1533-22-recurso"]
    elif notice.type is NoticeType.PRELIMINAR:
        rules = ["cp-24-defesa-notificacao", "cp-278-defesa"]
    else:
        rules = ["cp-37-reclamacao", "cp-278-defesa", "cp-43-recurso"]
    lines = []
    for rule_id in rules:
        rule = get_rule(rule_id)
        reading = choices.selected(rule)
        length = choices.length(reading)
        lines.append(tr._("{what}: {length} from the {start} ({article})").format(
            what=tr._(rule.description), length=unit_phrase(tr, reading.unit, length),
            start=tr._(START_EVENT_LABELS[reading.start_event]), article=rule.article))
    if notice.rulebook == L1533 and notice.payment_days is not None:
        rule = get_rule("l1533-13xxiii-pagamento")
        lines.append(tr._("{what}: {length} from the {start} ({article})").format(
            what=tr._(rule.description), length=unit_phrase(tr, Unit.CALENDAR_DAYS, notice.payment_days),
            start=tr._(START_EVENT_LABELS[rule.readings[0].start_event]), article=rule.article))
    if notice.rulebook == CP and notice.type is NoticeType.AUTO:
        lines.append(tr._(NO_DEPOSIT))
    if notice.type is NoticeType.AUTO:
        intro = tr._("You are summoned to pay the fine or to present a defence and evidence within:")
        return [intro, *lines]
    return lines


def penalty_lines(notice: Notice, tr: Translator) -> list[str]:
    """The sanctions besides the fine, in words with their articles."""
    return [f"{tr._(CONSEQUENCE_LABELS[kind])} ({article})" for kind, article in _penalties(notice)]


def _penalties(notice: Notice) -> list[tuple[ConsequenceKind, str]]:
    if not notice.penalties:
        return []
    pairs = []
    for item in notice.penalties.split("\n"):
        kind, _, article = item.partition("|")
        pairs.append((ConsequenceKind(kind), article))
    return pairs


def signature_line(notice: Notice, tr: Translator) -> str:
    """Who signed the act and when (issue 18 §2): "assinada eletronicamente em … por …", apart from the lavratura.

    A notice issued before signers were recorded says so, with its issue moment: it was not signed by a named
    member at issue, and nothing pretends otherwise.
    """
    if notice.signer is None or notice.signed_at is None:
        return tr._("{name} — issued on {date} at {time}, before signatures were recorded (unsigned)").format(
            name=notice.issuer_name, date=tr.short_date(notice.issued_at), time=tr.time(notice.issued_at))
    return tr._("Signed electronically on {date} at {time} by {author}").format(
        date=tr.short_date(notice.signed_at), time=tr.time(notice.signed_at),
        author=ActAuthor.from_data(notice.signer).line(tr))


def render_pdf(*, notice: Notice, code: str, city: Municipality, http_root: str) -> bytes:
    """The notice's official PDF in ``city``'s name (the notice's municipality), verified under ``http_root``."""
    tr = translator(DOCUMENT_LOCALE, city.tz.key)
    grouped = format_code(code)
    signed = signature_line(notice, tr)
    lines = deadline_lines(notice, city, tr)
    penalties = penalty_lines(notice, tr)
    verify_url = f"{http_root}/verificar/{grouped}"
    municipality = city.config
    context = PdfContext(
        # L9784 Art. 26 §1 III, V; CP Art. 24, 25 III, 34 III, 36 I; LGPD Art. 41 §1 (models.notices.act_elements)
        provision_lines=provision_lines(notice=notice, tr=tr),
        authority=notice.issuer_authority or municipality.prefeitura,
        appear_line=appear_line(notice=notice, municipality=municipality, tr=tr),
        where_to_act=where_to_act_lines(office=office_for_notices(municipality), public_url=verify_url, tr=tr),
        goes_on=goes_on_line(tr),
        encarregado=encarregado_line(municipality=municipality, tr=tr),
        receipt_lines=receipt_lines(notice=notice, tr=tr),
        municipality=city.name,
        law_title=LAW_TITLES[notice.rulebook],
        code=grouped,
        verify_url=verify_url,
        fine_detail=fine_detail(notice, tr) + ("\n" + "\n".join(penalties) if penalties else "")
        + ("\n" + tr._(ILLUSTRATIVE_FINE) if city.fines_illustrative else ""),
        deadline_lines=lines,
        signed_line=signed,
        payment=payment_flowables(payment_instructions(notice=notice, city=city), tr=tr,
                                  amount=tr.money(money_of(notice.fine_cents))),
    )
    return render_notice_pdf(notice=notice, context=context, tr=tr)
