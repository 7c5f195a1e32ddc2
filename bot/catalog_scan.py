"""Reading the code for its strings: what is marked for translation, what reaches people unmarked, and where.

Babel's Python extractor reads tokens, and on Python 3.11 an f-string is one token: ``f"<b>{tr._('Timeline')}</b>"``
hid its msgid from the catalogs. This module walks the syntax tree instead, so every way a string is marked is
seen, wherever it is: ``tr._``, ``tr.ngettext``, ``tr.pgettext``, ``tr.npgettext``, ``N_`` (also inside f-strings,
lambdas and default arguments).

Text sinks are the calls whose text argument reaches a person: Telegram's (a message, a caption, a button), a CLI
command's refusal (``CommandError``), and the models' reasons that the reader's side translates (``InvalidInput``
and its kinds, the driver import's row problems): a literal there must be marked.

Each use is given a *role*: ``button`` (the label of an inline or reply keyboard button, a main-menu label) or
``text`` (a message, a heading, an alert). One msgid means one thing: the same msgid used both as a button and as
text must carry a context (``tr.pgettext("button", "Answer")``), because languages word them differently
(pt_BR "Responder" on a button, "Resposta" over an answer).
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

MsgId = str | tuple[str, str]
Key = tuple[str | None, MsgId]  # (context, msgid or (singular, plural))

# keyword -> (index of the context argument or None, indexes of the msgid arguments)
KEYWORDS: dict[str, tuple[int | None, tuple[int, ...]]] = {
    "_": (None, (0,)),
    "gettext": (None, (0,)),
    "N_": (None, (0,)),
    "ngettext": (None, (0, 1)),
    "pgettext": (0, (1,)),
    "npgettext": (0, (1, 2)),
}
# Calls whose text argument reaches a person: (function name, index of the positional text, keyword names).
TEXT_SINKS: dict[str, tuple[int | None, tuple[str, ...]]] = {
    "reply": (2, ("text",)),
    "respond": (2, ("text",)),
    "send_message": (None, ("text",)),
    "edit_text": (0, ("text",)),
    "edit_message_text": (None, ("text",)),
    "edit_caption": (0, ("caption",)),
    "reply_text": (0, ("text",)),
    "answer": (0, ("text",)),
    "answer_query": (2, ("text",)),
    "send_document": (None, ("caption",)),
    "send_photo": (None, ("caption",)),
    "send_media_group": (None, ("caption",)),
    "InputMediaPhoto": (None, ("caption",)),
    "InputMediaDocument": (None, ("caption",)),
    "InlineKeyboardButton": (0, ("text",)),
    "KeyboardButton": (0, ("text",)),
    "BotCommand": (1, ("description",)),
    # Refusals read by a person: a CLI command's (printed as they are), and the models' reasons with a msgid that
    # the reader's side translates (a literal there must be marked with N_).
    "CommandError": (0, ()),
    "InvalidInput": (0, ("message",)),
    "InvalidIdentifier": (0, ("message",)),
    "HeadFormatError": (0, ("message",)),
    "row_problem": (1, ("message",)),  # a RowProblem of the driver registry import
    "_row_error": (0, ("message",)),  # ... of one row being read
}
BUTTON_SINKS = frozenset({"InlineKeyboardButton", "KeyboardButton"})
KEYBOARD_BUILDERS = frozenset({"keyboard"})  # keyboard([[("label", "data"), ...], ...]) in handlers.chat.replies
_WORD = re.compile(r"[^\W\d_]{2,}")  # two letters in a row: words, not "•", "—", "✅" or "%s"
_TAG = re.compile(r"</?\w+[^>]*>")


@dataclass
class Use:
    """One place a msgid is used."""

    path: str
    line: int
    role: str  # "button", "text" or "" (a constant marked with N_, translated elsewhere)


@dataclass
class Found:
    """What one scan of the code found."""

    marked: dict[Key, list[Use]] = field(default_factory=dict)
    unmarked: list[tuple[str, int, str]] = field(default_factory=list)  # path, line, the literal text


def _name(node: ast.expr) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return None


def _literal(node: ast.expr | None) -> str | None:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def _marked_key(call: ast.Call) -> Key | None:
    name = _name(call.func)
    if name not in KEYWORDS:
        return None
    context_index, indexes = KEYWORDS[name]
    wanted = [*indexes, *([] if context_index is None else [context_index])]
    if len(call.args) <= max(wanted):
        return None
    texts = [_literal(call.args[index]) for index in indexes]
    context = None if context_index is None else _literal(call.args[context_index])
    if any(text is None for text in texts) or (context_index is not None and context is None):
        return None
    msgid: MsgId = texts[0] if len(texts) == 1 else (texts[0], texts[1])  # type: ignore[assignment]
    return context, msgid


def _plain_words(node: ast.expr) -> str | None:
    """The literal text of an expression that would reach a person untranslated, if it has words."""
    parts: list[str] = []
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        parts = [node.value]
    elif isinstance(node, ast.JoinedStr):
        parts = [value.value for value in node.values if isinstance(value, ast.Constant) and isinstance(
            value.value, str)]
    elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        parts = [text for side in (node.left, node.right) if (text := _plain_words(side))]
    text = "".join(parts)
    return text if _WORD.search(_TAG.sub("", text)) else None


def _sink_arguments(call: ast.Call) -> Iterator[ast.expr]:
    name = _name(call.func)
    if name in KEYBOARD_BUILDERS and call.args and isinstance(call.args[0], ast.List | ast.Tuple):
        for row in call.args[0].elts:
            for button in row.elts if isinstance(row, ast.List | ast.Tuple) else ():
                if isinstance(button, ast.Tuple) and button.elts:
                    yield button.elts[0]
        return
    if name not in TEXT_SINKS:
        return
    index, keywords = TEXT_SINKS[name]
    if index is not None and len(call.args) > index:
        yield call.args[index]
    for keyword in call.keywords:
        if keyword.arg in keywords:
            yield keyword.value


def _button_labels(tree: ast.AST) -> set[int]:
    """The ids of the expressions that are a button's label."""
    labels: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            name = _name(node.func)
            if name in KEYBOARD_BUILDERS or name in BUTTON_SINKS:
                labels.update(id(argument) for argument in _sink_arguments(node))
            labels.update(id(keyword.value) for keyword in node.keywords if keyword.arg == "menu_label")
        elif isinstance(node, ast.Tuple) and len(node.elts) == 2:
            label, data = node.elts  # (label, callback data) rows built before keyboard() is called
            if isinstance(label, ast.Call) and _marked_key(label) and _is_callback_data(data):
                labels.add(id(label))
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            labels |= _labels_through_variables(node)
    return labels


def _labels_through_variables(function: ast.FunctionDef | ast.AsyncFunctionDef) -> set[int]:
    """``label = tr._("Done") if n else tr._("Skip")`` then ``[(label, "x:done")]``: those calls are labels."""
    as_label = {
        node.elts[0].id for node in ast.walk(function)
        if isinstance(node, ast.Tuple) and len(node.elts) == 2 and isinstance(node.elts[0], ast.Name)
        and _is_callback_data(node.elts[1])
    }
    return {
        id(inner) for node in ast.walk(function) if isinstance(node, ast.Assign)
        and any(isinstance(target, ast.Name) and target.id in as_label for target in node.targets)
        for inner in ast.walk(node.value) if isinstance(inner, ast.Call)
    }


def _is_callback_data(node: ast.expr) -> bool:
    """A button's data: a constant (``CANCEL``), a ``data`` variable, or a literal like ``"acomp:case:12"``."""
    if isinstance(node, ast.Name):
        return node.id.isupper() or "data" in node.id
    text = _literal(node)
    if text is None and isinstance(node, ast.JoinedStr) and node.values:
        text = _literal(node.values[0])
    return bool(text) and " " not in (text or "") and ":" in (text or "")


def _compared(tree: ast.AST) -> set[int]:
    """The ids of translated strings compared with what a person typed (a reply keyboard's label)."""
    return {id(operand) for node in ast.walk(tree) if isinstance(node, ast.Compare)
            for operand in [node.left, *node.comparators]}


def scan_file(path: Path, shown_as: str) -> Found:
    """Scan one Python file.

    Args:
        path: the file.
        shown_as: its path as reports show it (relative to the repository).

    Returns:
        Its marked msgids (with the role of each use) and the literal texts that reach people unmarked.
    """
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    found = Found()
    buttons = _button_labels(tree) | _compared(tree)
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        key = _marked_key(node)
        if key is not None:
            role = "button" if id(node) in buttons else ("" if _name(node.func) == "N_" else "text")
            found.marked.setdefault(key, []).append(Use(shown_as, node.lineno, role))
        for argument in _sink_arguments(node):
            if isinstance(argument, ast.Call) and _name(argument.func) in KEYWORDS:
                continue
            text = _plain_words(argument)
            if text is not None:
                found.unmarked.append((shown_as, argument.lineno, text))
    return found


def scan_templates(root: Path, directory: str) -> Found:
    """The msgids of the Jinja2 templates (``templates/*.html``, e.g. the staff console's) under a directory.

    Templates call ``_()``, ``ngettext()`` and ``pgettext()``; Jinja2's own Babel extractor reads them. Their uses
    have no chat role (an HTML page has no Telegram buttons), so they never make a msgid ambiguous.
    """
    from babel.messages.extract import DEFAULT_KEYWORDS, extract_from_dir

    found = Found()
    base = root / directory
    for filename, lineno, message, _comments, context in extract_from_dir(
        base, method_map=[("**/templates/**.html", "jinja2.ext:babel_extract")], keywords=DEFAULT_KEYWORDS
    ):
        msgid: MsgId = message if isinstance(message, str) else (message[0], message[1])
        found.marked.setdefault((context, msgid), []).append(Use(f"{directory}/{filename}", lineno, ""))
    return found


def scan(root: Path, directories: tuple[str, ...]) -> Found:
    """Scan every Python file and Jinja2 template under the given directories of ``root``."""
    total = Found()
    for directory in directories:
        paths = sorted((root / directory).rglob("*.py"))
        files = [scan_file(path, path.relative_to(root).as_posix()) for path in paths]
        for found in [*files, scan_templates(root, directory)]:
            for key, uses in found.marked.items():
                total.marked.setdefault(key, []).extend(uses)
            total.unmarked.extend(found.unmarked)
    return total


def ambiguous(found: Found) -> dict[Key, list[Use]]:
    """Msgids without a context used both as a button label and as text (each needs a pgettext context)."""
    return {
        key: uses for key, uses in found.marked.items()
        if key[0] is None and {"button", "text"} <= {use.role for use in uses}
    }
