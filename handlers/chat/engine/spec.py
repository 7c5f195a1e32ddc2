"""How a form is declared: its steps as data, each with its question, the inputs it accepts and their parsers.

A parser turns one input (typed text, a button's argument, a location, a contact) into an :class:`Answer` or a
plain dict of values, or raises :class:`~models.invalid_input.InvalidInput` with the reason (typed input) — the
same parsers check button data, so a forged button is refused like a wrong answer.
"""

from __future__ import annotations

import datetime as dt
import inspect
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from telegram import Contact, Update

from core.i18n import N_, Translator
from core.municipality import Cities, Municipality
from core.settings import Settings
from handlers.chat.context import BalcaoContext, city_today
from handlers.chat.intake import Keeper
from handlers.chat.replies import Markup
from models.invalid_input import InvalidInput
from models.people import Role

Values = dict[str, Any]
Rows = list[list[tuple[str, str]]]


@dataclass(slots=True)
class Turn:
    """One update handled by a form: the chat, and the form's answers so far (changed by the parsers' answers)."""

    update: Update
    context: BalcaoContext
    data: Values
    base: Values | None = None
    """The answers as this turn read them from the draft: a save merges only what changed since (None: a new form)."""

    @property
    def tr(self) -> Translator:
        """The reader's translator."""
        return self.context.tr

    @property
    def settings(self) -> Settings:
        """The deployment's settings."""
        return self.context.settings

    @property
    def city(self) -> Municipality:
        """The person's municipality."""
        return self.context.city

    @property
    def cities(self) -> Cities:
        """Every municipality the deployment serves."""
        return self.context.cities

    @property
    def today(self) -> dt.date:
        """Today in the deployment's time zone."""
        return city_today(self.context)


@dataclass(frozen=True, slots=True)
class Question:
    """What a step asks: the text (translated), its buttons (``(label, data)`` rows), or another keyboard.

    The engine adds the Cancel row under inline buttons; ``markup`` (e.g. a location request keyboard) replaces
    both.
    """

    text: str
    rows: Rows = field(default_factory=list)
    markup: Markup | None = None


@dataclass(frozen=True, slots=True)
class Answer:
    """What a parser made of an input.

    Attributes:
        values: answers to store (merged into the form's data).
        goto: ask this (sub-)step next instead of the next one in the flow.
        stay: keep the form on this step and show this instead of moving on (search results...).
        note: a short translated line said before the next question ("Address noted.").
        note_markup: the keyboard of that line (e.g. removing a location keyboard).
    """

    values: Values = field(default_factory=dict)
    goto: str | None = None
    stay: Question | None = None
    note: str | None = None
    note_markup: Markup | None = None


TextParser = Callable[[str, Turn], "Answer | Values | Awaitable[Answer | Values]"]
ButtonParser = Callable[[str, Turn], "Answer | Values | Awaitable[Answer | Values]"]
LocationParser = Callable[[float, float, Turn], "Answer | Values"]
ContactParser = Callable[[Contact, Turn], "Answer | Values | Awaitable[Answer | Values]"]
Entry = Callable[[str, Update, BalcaoContext], Awaitable[None]]


@dataclass(frozen=True, slots=True)
class Step:
    """One question of a form.

    Attributes:
        name: the step's name (kept in the draft; ``<prefix>:edit:<name>`` changes it from the review).
        ask: builds the question for the answers so far.
        text: parses a typed answer (None: typing is refused with "press a button").
        buttons: per button action (``<prefix>:<action>:<arg>``), the parser of its argument.
        location: parses a shared location.
        contact: parses a shared contact (Telegram's "share my phone number" button).
        files: photos, documents, voice notes and videos are taken here (``<prefix>:files:done`` moves on,
            refused while ``files_required`` and none was sent).
        files_required: Done needs at least one file (or the typed alternative).
        yes: the button action a typed "sim"/"yes" stands for (``"veh:ok"``); ``no`` likewise.
        label: the msgid naming this answer in "change something" (None: not changeable from the review).
        parent: for a sub-step (reached only by ``goto``), the step of the flow it continues.
    """

    name: str
    ask: Callable[[Turn], Question]
    text: TextParser | None = None
    buttons: Mapping[str, ButtonParser] = field(default_factory=dict)
    location: LocationParser | None = None
    contact: ContactParser | None = None
    files: bool = False
    files_required: bool = False
    yes: str | None = None
    no: str | None = None
    label: str | None = None
    parent: str | None = None


@dataclass(frozen=True, slots=True)
class Review:
    """What an asynchronous review found (``Form.review``): the summary, and whether Send is offered.

    Attributes:
        text: the review's text (the summary, what the domain computed, what stops it).
        ready: Send is offered (False: the act cannot be filed as it is, and ``fields`` says what to change).
        fields: the steps to change, offered first as buttons.
        rows: further buttons above the changes (e.g. confirming a late act).
    """

    text: str
    ready: bool = True
    fields: tuple[str, ...] = ()
    rows: Rows = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class Filed:
    """What a submission gave: the result quoted to later presses of Send (a protocol number), and the answer."""

    result: str
    announce: Callable[[], Awaitable[None]]


@dataclass(frozen=True, slots=True)
class Form:
    """A conversation declared as data; ``handlers.chat.engine.flow`` runs it.

    Attributes:
        name: the ``Draft.form`` value.
        prefix: the buttons' prefix (``rep`` → ``rep:<action>[:<arg>]``).
        title: msgid naming the form for /cancelar ("your report").
        steps: every step, sub-steps included.
        flow: the step names in order for the answers so far (the review comes after the last).
        start: the first answers (raise InvalidInput to refuse to start, e.g. not available in this city).
        intro: msgid said when the form starts.
        resume: msgid offering to continue or start again.
        gone: msgid for a button of a form no longer in progress.
        already_sent: msgid with ``{result}`` for a Send pressed after the form was filed.
        review_intro: msgid above the summary.
        summary: the review's text for the answers.
        review_note: a msgid under the summary, or None.
        submit: files the form (the domain call); raises InvalidInput with the reason it was refused.
        refusal_fields: the steps a refusal names, offered as buttons to change them.
        before_start: a check before a new form starts (the daily limit); False stops (and has said why).
        review: an asynchronous review replacing ``summary`` (the domain computes, and may refuse before Send).
        send_label: msgid of the Send button ("✅ Issue the notice").
        roles: the staff roles allowed to use the form, checked on every update of it (None: anyone).
        timeout: how long a draft may stay idle, from the settings: longer, it is closed when its next update
            arrives (None: never).
        timed_out: msgid said then, with ``{hours}``: that it was closed, and what was kept.
        back: the screen the form was opened from, shown after it is filed or cancelled (like PTB's
            ``map_to_parent``): a sub-form returns there.
        refusal_fields: the steps a refusal names (default: ``InvalidInput.fields`` taken as step names).
        review_buttons: buttons of the review (``<prefix>:<action>:<arg>``, e.g. confirming a late act): the
            parser's values are stored and the review shown again.
        entries: buttons that start the form from another screen (``<prefix>:case:<id>``): each calls
            ``begin(form, …, prefill=, pending=)`` with what it found.
        keep_file: where its files are kept, when not as a case's attachments (a defence's files).
        check: the domain's check of the form's answers on every update but Cancel, the start included (a staff
            action: the member may still act on this case, still open); False: it has said why, and the draft is
            closed (at the start, nothing is saved).
        prepare: first answers read from the database when the form begins, over ``start``'s (what the person
            told in their last case, offered back as a one-tap answer).
        confirm: a review with Send comes after the last answer (False: the last answer files the form at once,
            claimed once like Send — a code typed to link a registration needs no confirmation).
    """

    name: str
    prefix: str
    title: str
    steps: tuple[Step, ...]
    flow: Callable[[Values], tuple[str, ...]]
    start: Callable[[Turn], Values]
    intro: str
    resume: str
    gone: str
    already_sent: str
    review_intro: str
    summary: Callable[[Turn], str]
    submit: Callable[[Turn], Awaitable[Filed]]
    refusal_fields: Callable[[InvalidInput], tuple[str, ...]] = lambda refused: refused.fields
    review_note: str | None = None
    before_start: Callable[[Update, BalcaoContext], Awaitable[bool]] | None = None
    review: Callable[[Turn], Awaitable[Review]] | None = None
    send_label: str = N_("✅ Send")
    roles: frozenset[Role] | None = None
    timeout: Callable[[Settings], dt.timedelta | None] | None = None
    timed_out: str = N_("This form waited more than {hours} hours without an answer, so it was closed. Nothing was "
                        "sent; what you had sent before is kept.")
    back: Callable[[Turn], Awaitable[None]] | None = None
    review_buttons: Mapping[str, ButtonParser] = field(default_factory=dict)
    entries: Mapping[str, Entry] = field(default_factory=dict)
    keep_file: Keeper | None = None
    """Where the files of its ``files`` steps are kept (None: a case's attachments, claimed by the filing)."""
    check: Callable[[Turn], Awaitable[bool]] | None = None
    prepare: Callable[[Turn], Awaitable[Values]] | None = None
    confirm: bool = True

    def step(self, name: str) -> Step | None:
        """The step called ``name``, if the form has one."""
        return next((step for step in self.steps if step.name == name), None)


class Forged(ValueError):
    """Button data that no parser of the form accepts (an old client, a modified one, or a forgery)."""


async def parsed(result: Any) -> Answer:
    """A parser's result as an :class:`Answer` (awaited if the parser is asynchronous)."""
    if inspect.isawaitable(result):
        result = await result
    return result if isinstance(result, Answer) else Answer(values=dict(result))
