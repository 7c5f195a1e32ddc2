"""The representação's review text and the domain form built from its answers (``handlers.chat.representation``)."""

from __future__ import annotations

import datetime as dt
from typing import Any

from core.i18n import N_, Translator
from handlers.chat.replies import esc
from models.cases.filing import RIDE_HAILING_BY_KEY, Author, Place, RepresentationForm, RideHailingForm
from models.cases.tables import Relation
from models.drivers.identifiers import mask_cpf
from models.rulebooks.catalogue import get_infraction

LEARNED = {
    "saw": N_("I saw it myself"),
    "told": N_("Someone told me"),
    "media": N_("News or social media"),
}


def _line(label: str, value: object) -> str:
    return f"<b>{esc(label)}:</b> {esc(value)}"


def summary(data: dict[str, Any], tr: Translator) -> str:
    """The review screen's text: every answer, as it will be filed."""
    lines = []
    if data.get("kind") == "app":
        lines.append(tr._("<b>Report about a ride-hailing driver</b>"))
        lines.append(_line(tr._("Car"), data.get("vehicle_ref", "")))
        reason = RIDE_HAILING_BY_KEY.get(data.get("reason", ""))
        if reason:
            lines.append(_line(tr._("What the driver did"), tr._(reason.label)))
    else:
        lines.append(tr._("<b>Representation (Código de Posturas)</b>"))
        lines.append(_line(tr._("Name"), data.get("name", "")))
        lines.append(_line(tr._("Profession"), data.get("profession", "")))
        lines.append(_line(tr._("Address"), data.get("address", "")))
        if data.get("cpf"):
            lines.append(_line(tr._("CPF"), mask_cpf(data["cpf"])))
        if data.get("infraction_code"):
            infraction = get_infraction(data["infraction_code"])
            lines.append(_line(tr._("Rule broken"), f"{infraction.description} ({infraction.article})"))
    lines.append(_line(tr._("What happened"), data.get("facts", "")))
    if data.get("kind") != "app":
        lines.append(_line(tr._("Who is responsible"), data.get("accused") or tr._("not known")))
    place = data.get("place_text") or (
        tr._("location sent ({lat:.5f}, {lon:.5f})").format(lat=data["lat"], lon=data["lon"])
        if data.get("lat") is not None else ""
    )
    lines.append(_line(tr._("Where"), place))
    if data.get("occurred_on"):
        lines.append(_line(tr._("When"), tr.date(dt.date.fromisoformat(data["occurred_on"]))))
    files = len(data.get("files", []))
    evidence = [tr.ngettext("{n} file", "{n} files", files).format(n=files)] if files else []
    if data.get("evidence_note"):
        evidence.append(data["evidence_note"])
    lines.append(_line(tr._("Evidence"), "; ".join(evidence) or tr._("none")))
    if data.get("kind") == "app":
        lines.append(_line(tr._("Your name"), data.get("name", "")))
    else:
        key = data.get("learned_key")
        learned = tr._(LEARNED[key]) if key in LEARNED else data.get("learned", "")
        lines.append(_line(tr._("How you learned of it"), learned))
        relation = {"none": tr._("none"), "current": tr._("I still work there"),
                    "former": tr._("I left on {date}").format(
                        date=tr.date(dt.date.fromisoformat(data["relation_ended_on"]))
                    ) if data.get("relation_ended_on") else ""}.get(data.get("relation", ""), "")
        lines.append(_line(tr._("Relation to the accused"), relation))
    return "\n".join(lines)


def _place(data: dict[str, Any]) -> Place:
    return Place(text=data.get("place_text"), latitude=data.get("lat"), longitude=data.get("lon"))


def filing_form(data: dict[str, Any]) -> RepresentationForm | RideHailingForm:
    """The domain form for the answers: a ride-hailing report or a representação (CP Art. 31)."""
    occurred = dt.date.fromisoformat(data["occurred_on"])
    if data.get("kind") == "app":
        return RideHailingForm(
            author=Author(name=data["name"]),
            vehicle_ref=data["vehicle_ref"],
            reason=data["reason"],
            facts=data["facts"],
            occurred_on=occurred,
            place=_place(data),
            driver_id=data.get("driver_id"),
            evidence_note=data.get("evidence_note"),
            attachment_ids=list(data.get("files", [])),
        )
    ended = data.get("relation_ended_on")
    return RepresentationForm(
        author=Author(name=data["name"], profession=data["profession"], address=data["address"], cpf=data.get("cpf")),
        facts=data["facts"],
        occurred_on=occurred,
        place=_place(data),
        learned_how=data.get("learned") or "",
        relation=Relation(data.get("relation", "none")),
        infraction_code=data.get("infraction_code"),
        accused=data.get("accused"),
        evidence_note=data.get("evidence_note"),
        attachment_ids=list(data.get("files", [])),
        relation_ended_on=dt.date.fromisoformat(ended) if ended else None,
    )
