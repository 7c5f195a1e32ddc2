"""The elements an intimação must carry besides the charge, or it is null (L9784 Art. 26 §1, §5).

- III, where, when and how to act: the office people notified must appear at (the *setor competente* of CP
  Art. 24), its address and hours from the municipalities file, the chat, the act's public page, and how to file;
- IV, whether the person must appear in person or may be represented: the Código de Posturas and Lei 1.533
  require no personal appearance, so every act says the person may be represented by someone they authorise in
  writing or by a lawyer (L9784 Art. 3 IV; ``docs/LEGAL-CHOICES.md`` #78);
- V, that the process goes on whether or not the person acts;
- LGPD Art. 41 §1: the encarregado's name and contact (:mod:`models.encarregado`), on every document that carries
  personal data.

The notice's PDF and the decisions sent in the chat print them from here (:func:`where_to_act_lines`,
:func:`goes_on_line`), so the two cannot drift apart.
"""

from __future__ import annotations

from core.i18n import N_, Translator
from core.municipalities import MunicipalityConfig, Office
from models.notices.tables import Notice, NoticeType
from models.rulebooks.catalogue import CP, LAW_TITLES, get_infraction

GOES_ON = N_("The process goes on whether or not you act: without a defence within the deadline, the "
             "authority decides on what is in the file.")
"""L9784 Art. 26 §1 V."""
REPRESENTED = N_("You need not come in person: you may be represented by someone you authorise in writing (a "
                 "signed authorisation) or by a lawyer.")
"""L9784 Art. 26 §1 IV (and Art. 3 IV: a lawyer is optional)."""
ELEMENTS_CITATION = "Lei nº 9.784/1999, Art. 26, §1º, III a V"
"""What the lines of :func:`where_to_act_lines` and :func:`goes_on_line` carry, as every act cites them."""


class NoOfficeForNotices(LookupError):
    """The municipality names no office where people notified may appear: the intimação would be null."""


def office_for_notices(municipality: MunicipalityConfig) -> Office:
    """The office where people notified appear and file (CP Art. 24 setor competente; L9784 Art. 26 §1 III).

    Raises:
        NoOfficeForNotices: the municipalities file lists no office for this municipality.
    """
    office = municipality.office_for_notices
    if office is None:
        raise NoOfficeForNotices(municipality.slug)
    return office


def where_to_act_lines(*, office: Office, public_url: str, tr: Translator) -> list[str]:
    """Where, when and how to act (L9784 Art. 26 §1 III) and in person or represented (IV), one line each.

    Args:
        office: the issuing municipality's office for notices (:func:`office_for_notices`).
        public_url: the act's public page (``/verificar/<code>``), where it can be checked and read again.
        tr: the reader's translator.
    """
    where = tr._("In person: {office}, {address}").format(office=office.name, address=office.address)
    if office.hours:
        where += " — " + tr._("opening hours: {hours}").format(hours=office.hours)
    return [
        where,
        tr._("In the chat: the city hall's Telegram bot, command /notificacoes (defend yourself, appeal, see the "
             "deadlines)."),
        tr._("On the internet: {url}").format(url=public_url),
        tr._("How to file: a written defence, with the evidence you have, handed in at the office above within "
             "the deadline, or sent in the chat."),
        tr._(REPRESENTED),  # L9784 Art. 26 §1 IV
    ]


def goes_on_line(tr: Translator) -> str:
    """That the process goes on whether or not the person acts (L9784 Art. 26 §1 V)."""
    return tr._(GOES_ON)


def provision_lines(*, notice: Notice, tr: Translator) -> list[str]:
    """The provision infringed, the prohibition's table item and the penalty article, apart.

    CP Art. 25 III, 34 III; L9784 Art. 26 §1 VI. The inspector's provision, when given, stands before the row's own.
    """
    infraction = get_infraction(notice.infraction_code)
    law = LAW_TITLES[notice.rulebook]
    provision = notice.infringed_provision or infraction.infringed
    lines = [f"{law}, {provision} — {notice.infraction_description}"]
    if infraction.table_item:
        lines.append(tr._("Prohibition: {item} ({title})").format(item=infraction.table_item,
                                                                 title=infraction.table_title))
    lines.append(tr._("Penalty: {law}, {article}").format(law=law, article=notice.infraction_article))
    return lines


def appear_line(*, notice: Notice, municipality: MunicipalityConfig, tr: Translator) -> str:
    """The preliminar's setor competente, where the person must appear (CP Art. 24); empty on an auto."""
    if notice.type is not NoticeType.PRELIMINAR:
        return ""
    office = office_for_notices(municipality)
    return tr._("{office}, {address}, within the deadline above (Art. 24)").format(
        office=office.name, address=office.address)


def receipt_lines(*, notice: Notice, tr: Translator) -> list[str]:
    """CP Art. 36 I: the dated receipt for delivery in person, with the refusals the code records.

    Art. 25 sole paragraph, 26 sole paragraph (preliminar), 34 §3 (auto). Lei 1.533 names no such receipt: none.
    """
    if notice.rulebook != CP:
        return []
    lines = [
        tr._("I received a copy of this document on ____/____/________ at ____h____. "
             "Signature of the person notified: ______________________________"),
    ]
    if notice.type is NoticeType.PRELIMINAR:
        lines.append(tr._("[  ] Refused to sign the \"ciente\" (Art. 25, sole paragraph)   "
                          "[  ] Refused to receive it, as the agent declares (Art. 26, sole paragraph)"))
    else:
        lines.append(tr._("[  ] Refused to sign   [  ] Could not sign (Art. 34, §3º)"))
    lines.append(tr._("Agent's statement and signature: ______________________________"))
    return lines
