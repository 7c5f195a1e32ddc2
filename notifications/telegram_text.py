"""Telegram's limits on what one call may carry, and how a message is cut to fit them.

A text message holds at most 4096 characters counted after HTML parsing; a longer one is sent in parts,
cut between words and never inside a tag (open tags are closed at the cut and reopened in the next part).
The splitting follows ``handlers.chat.html_split`` (the chat replies' splitter), which ``notifications``
cannot import: dependencies point from handlers to notifications, not back.
"""

from __future__ import annotations

import html
import re
from html.parser import HTMLParser

TEXT_LIMIT = 4096
"""Characters of one text message (after entity parsing)."""
CALLBACK_DATA_LIMIT = 64
"""Bytes of an inline button's callback data."""
DOCUMENT_LIMIT = 50 * 1024 * 1024
"""Bytes of a document a bot may upload."""
ALLOWED_TAGS = frozenset(
    {"b", "strong", "i", "em", "u", "ins", "s", "strike", "del", "a", "code", "pre", "tg-spoiler", "blockquote",
     "span", "tg-emoji"}
)
"""The HTML tags Telegram's ``parse_mode=HTML`` understands."""

_TOKEN = re.compile(r"(<[^>]+>)")
_TAG = re.compile(r"<(/?)([a-zA-Z-]+)[^>]*>")
_WORDS = re.compile(r"(\s+)")


def small(text: str) -> str:
    """``text`` (a legal reference, a note) escaped, on a second, smaller line (DESIGN.md: not as the lead)."""
    return f"\n<i>{html.escape(text, quote=False)}</i>"


def visible_length(fragment: str) -> int:
    """The length Telegram counts: text without tags, entities decoded."""
    return len(html.unescape(_TOKEN.sub("", fragment)))


def _units(text: str, limit: int) -> list[tuple[str, str]]:
    units: list[tuple[str, str]] = []
    for token in _TOKEN.split(text):
        if not token:
            continue
        if _TAG.fullmatch(token):
            units.append(("tag", token))
            continue
        for word in _WORDS.split(html.unescape(token)):
            for start in range(0, len(word), limit):
                if word[start : start + limit]:
                    units.append(("text", word[start : start + limit]))
    return units


def _track_tag(open_tags: list[tuple[str, str]], tag: str) -> None:
    """Update the open tags (name, opening tag) with ``tag``: an opening is pushed, a closing ends its last match."""
    match = _TAG.fullmatch(tag)
    assert match is not None
    closing, name = match.group(1), match.group(2).lower()
    if closing:
        for index in range(len(open_tags) - 1, -1, -1):
            if open_tags[index][0] == name:
                del open_tags[index]
                break
    else:
        open_tags.append((name, tag))


def split_html(text: str, limit: int = TEXT_LIMIT) -> list[str]:
    """Split Telegram HTML into parts of at most ``limit`` visible characters, each valid HTML.

    Args:
        text: Telegram-HTML message.
        limit: maximum visible characters per part.

    Returns:
        ``[text]`` when it fits, else the parts in order.
    """
    if visible_length(text) <= limit:
        return [text]
    parts: list[str] = []
    open_tags: list[tuple[str, str]] = []
    pieces: list[str] = []
    length = 0
    line_break: tuple[int, int, list[tuple[str, str]]] | None = None  # (pieces index, length, open tags)

    def close(upto: int, tags: list[tuple[str, str]]) -> None:
        body = "".join(pieces[:upto]) + "".join(f"</{name}>" for name, _ in reversed(tags))
        if body.strip() and visible_length(body):
            parts.append(body.strip())

    for kind, value in _units(text, limit):
        if kind == "tag":
            _track_tag(open_tags, value)
            pieces.append(value)
            continue
        if length + len(value) > limit:
            if line_break is not None and line_break[1] > limit * 2 // 3:
                index, _, tags_then = line_break
                close(index, tags_then)
                pieces = [opening for _, opening in tags_then] + pieces[index:]
                length -= line_break[1]
            else:
                close(len(pieces), open_tags)
                pieces = [opening for _, opening in open_tags]
                length = 0
                if value.isspace():  # the break itself: drop it at the start of the next part
                    line_break = None
                    continue
            line_break = None
        pieces.append(html.escape(value, quote=False))
        length += len(value)
        if "\n" in value:
            line_break = (len(pieces), length, list(open_tags))
    close(len(pieces), open_tags)
    return parts


class _Checker(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.stack: list[str] = []
        self.problem: str | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag not in ALLOWED_TAGS:
            self.problem = self.problem or f"tag <{tag}> is not allowed"
        self.stack.append(tag)

    def handle_endtag(self, tag: str) -> None:
        if not self.stack or self.stack[-1] != tag:
            self.problem = self.problem or f"</{tag}> does not close the last open tag"
            return
        self.stack.pop()


def html_problem(text: str) -> str | None:
    """Why Telegram would refuse this HTML (a short English reason), or None when it is fine.

    Checks that only Telegram's tags are used and that they nest and close properly; ``<``, ``>`` and
    ``&`` in plain text must be written ``&lt;``, ``&gt;`` and ``&amp;``.
    """
    checker = _Checker()
    checker.feed(text)
    checker.close()
    if checker.problem:
        return checker.problem
    if checker.stack:
        return f"<{checker.stack[-1]}> is never closed"
    if re.search(r"<(?![a-zA-Z/])", text) or re.search(r"&(?!#?\w+;)", text):
        return "a bare < or & must be written &lt; or &amp;"
    return None
