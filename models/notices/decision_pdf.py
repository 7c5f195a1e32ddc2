"""A decision on a defence, reclamação or appeal as a document of its own, PAdES-signed like the notice (issue 18).

A decision is an administrative act and an intimação: it names its author (name, office, registration and
designation act: L9784 Art. 2 sole paragraph XIII with issue 18 §1), gives its reasons (CP Art. 41;
L9784 Art. 50) and outcome under the articles it applies (CP Art. 40–41 first instance, 43–45 appeal; Lei 1.533
Art. 17 and 22), and says what the person may do next and by when, where and how, and that the process goes on
(L9784 Art. 26 §1 III and V). It is rendered once, when the decision is given, signed with the certificate of the
municipality that issued the act (:func:`models.notices.signing.sign_act_pdf`), stored with the filing and never
regenerated: its SHA-256 is in the filing's leaf of the transparency log (``models.tlog.coverage``) and in the
decision's chain event. A decision given before this version has no document (``decision_pdf`` None: "unsigned,
before this version").
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from xml.sax.saxutils import escape

from reportlab.lib import colors
from reportlab.lib.styles import ParagraphStyle, getSampleStyleSheet
from reportlab.lib.units import mm
from reportlab.platypus import Flowable, Paragraph, Spacer, Table, TableStyle

from core.i18n import N_, Translator, translator
from core.municipality import Municipality
from models.authorities import ActAuthor
from models.encarregado import encarregado_line
from models.notices.act_elements import ELEMENTS_CITATION, goes_on_line, where_to_act_lines
from models.notices.labels import TYPE_LABELS
from models.notices.tables import FilingKind, FilingOutcome, Notice, NoticeFiling, NoticeType
from models.pdf_layout import a4_pdf
from models.rulebooks.catalogue import CP, LAW_TITLES
from models.rulebooks.deadline_rules import Unit, get_rule, unit_phrase

DOCUMENT_LOCALE = "pt_BR"

TITLES = {
    FilingKind.DEFESA: N_("DECISION ON THE DEFENCE (FIRST INSTANCE)"),
    FilingKind.RECLAMACAO: N_("DECISION ON THE COMPLAINT (RECLAMAÇÃO, FIRST INSTANCE)"),
    FilingKind.RECURSO: N_("DECISION ON THE APPEAL (SECOND INSTANCE)"),
}
FILED = {
    FilingKind.DEFESA: N_("Defence filed on {date}"),
    FilingKind.RECLAMACAO: N_("Complaint (reclamação) filed on {date}"),
    FilingKind.RECURSO: N_("Appeal filed on {date}"),
}
ARTICLES = {  # the articles each decision is given under, with the motivation it owes (L9784 Art. 50)
    (CP, False): "Art. 40 e 41",  # CP Art. 40: the Chefe decides the reclamação; Art. 41: with reasons
    (CP, True): "Art. 43 a 45",  # CP Art. 43, 45: the appeal, decided by the Prefeito
}
L1533_ARTICLES = {False: "Art. 17 e 22", True: "Art. 22"}  # L1533 Art. 17 (SMFO), 22 (defesa prévia, recurso)


def decision_articles(notice: Notice, filing: NoticeFiling) -> str:
    """The law and articles the decision applies, and the motivation rule, e.g. ``CP Art. 40 e 41``."""
    appeal = filing.kind is FilingKind.RECURSO
    articles = ARTICLES[CP, appeal] if notice.rulebook == CP else L1533_ARTICLES[appeal]
    return f"{LAW_TITLES[notice.rulebook]}, {articles}; Lei nº 9.784/1999, Art. 50"


def outcome_line(*, notice: Notice, filing: NoticeFiling, final: bool, tr: Translator) -> str:
    """What was decided, in words."""
    if filing.outcome is FilingOutcome.GRANTED:
        return tr._("Accepted (procedente): the notice is cancelled.")
    if notice.type is NoticeType.PRELIMINAR:
        return tr._("Not accepted (improcedente): the preliminary notice stands and the infraction becomes an "
                    "infraction report (CP Art. 28).")
    if final:
        return tr._("Not accepted (improcedente): the notice stands. This decision is final in the administrative "
                    "sphere.")
    return tr._("Not accepted (improcedente): the notice stands.")


def next_step_lines(*, terms: Sequence[dict[str, object]], tr: Translator) -> list[str]:
    """What the person may do next and by when (L9784 Art. 26 §1 III), from the windows the decision opens."""
    lines = []
    for term in terms:
        rule = get_rule(str(term["rule"]))
        length = unit_phrase(tr, Unit(str(term["unit"])), int(str(term["length"])))
        if rule.id.endswith("-recurso"):
            line = tr._("You may appeal within {length}, counted from the day you receive this decision ({law}, "
                        "{article}).")
        else:
            line = tr._("Pay the fine within {length}, counted from the day you receive this decision ({law}, "
                        "{article}).")
        lines.append(line.format(length=length, law=rule.law_title, article=rule.article))
    if not lines:
        lines.append(tr._("Nothing more to do: the notice is closed."))
    return lines


def _styles() -> tuple[ParagraphStyle, ParagraphStyle, ParagraphStyle, ParagraphStyle, ParagraphStyle]:
    sheet = getSampleStyleSheet()
    body = ParagraphStyle("body", parent=sheet["BodyText"], fontSize=9.5, leading=12)
    small = ParagraphStyle("small", parent=body, fontSize=8, leading=10, textColor=colors.HexColor("#444444"))
    label = ParagraphStyle("label", parent=body, fontName="Helvetica-Bold")
    title = ParagraphStyle("title", parent=sheet["Title"], fontSize=13, leading=16, spaceAfter=2)
    header = ParagraphStyle("header", parent=body, alignment=1, fontName="Helvetica-Bold", fontSize=11)
    return body, small, label, title, header


def _para(text: str, style: ParagraphStyle) -> Paragraph:
    return Paragraph(escape(text).replace("\n", "<br/>"), style)


def render_decision_pdf(*, notice: Notice, filing: NoticeFiling, author: ActAuthor, terms: Sequence[dict[str, object]],
                        final: bool, city: Municipality, http_root: str) -> bytes:
    """The decision's PDF, in the municipality's language (``pt_BR``); deterministic for the same input.

    Args:
        notice: the notice decided on (its issuing Prefeitura heads the document).
        filing: the decided filing (outcome, reasons and moment set).
        author: the competent authority who decided (:func:`models.notices.authority.access_decision`).
        terms: the windows the decision opens (``models.notices.delivery.decision_window_terms``).
        final: whether the decision closes the notice.
        city: the notice's municipality (CF Art. 30 I: the act is its Prefeitura's).
        http_root: the public root the document points to for verification (/verificar).
    """
    assert filing.decided_at is not None
    tr = translator(DOCUMENT_LOCALE, city.tz.key)
    body, small, label, title, header = _styles()
    decided_at: dt.datetime = filing.decided_at
    rows = [
        (tr._("Notice"), f"{tr._(TYPE_LABELS[notice.type])} {notice.number}"),
        (tr._("Filing decided"), tr._(FILED[filing.kind]).format(date=tr.short_date(filing.filed_at))),
        (tr._("Result of the decision"), outcome_line(notice=notice, filing=filing, final=final, tr=tr)),
        (tr._("Reasons of the decision"), filing.decision_text or ""),
        (tr._("Legal basis"), decision_articles(notice, filing)),
        (tr._("Author of the decision"), author.line(tr)),
        (tr._("Signature"), tr._("Signed electronically on {date} at {time} by {author}").format(
            date=tr.short_date(decided_at), time=tr.time(decided_at), author=author.line(tr))),
        (tr._("What you may do next, and by when"), "\n".join(next_step_lines(terms=terms, tr=tr))),
    ]
    table = Table([[_para(name, label), _para(value, body)] for name, value in rows], colWidths=[42 * mm, 128 * mm],
                  style=TableStyle([("VALIGN", (0, 0), (-1, -1), "TOP"),
                                    ("LINEBELOW", (0, 0), (-1, -1), 0.25, colors.HexColor("#BBBBBB")),
                                    ("BOTTOMPADDING", (0, 0), (-1, -1), 4)]))
    story: list[Flowable] = [
        _para(notice.issuer_authority or city.config.prefeitura, header),
        _para(LAW_TITLES[notice.rulebook], ParagraphStyle("law", parent=small, alignment=1)),
        Spacer(1, 4 * mm), _para(tr._(TITLES[filing.kind]), title), Spacer(1, 4 * mm), table,
    ]
    office = city.config.office_for_notices
    verify_url = f"{http_root}/verificar"
    if office is not None:  # L9784 Art. 26 §1 III and V: where, when and how to act; the process goes on
        story += [Spacer(1, 3 * mm), _para(tr._("Where, when and how to act"), label)]
        story += [_para("• " + line, small) for line in where_to_act_lines(office=office, public_url=verify_url, tr=tr)]
        story += [_para(goes_on_line(tr), label), _para(ELEMENTS_CITATION, small)]
    story += [Spacer(1, 3 * mm), _para(tr._(
        "Check this decision at {url} with the verification code printed on notice {number}.").format(
        url=verify_url, number=notice.number), small)]
    privacy = encarregado_line(municipality=city.config, tr=tr)  # LGPD Art. 41 §1
    if privacy:
        story += [Spacer(1, 3 * mm), _para(privacy, small)]
    return a4_pdf(story, title=f"{tr._(TITLES[filing.kind])} {notice.number}", author=city.name,
                  vertical_margin=18 * mm)
