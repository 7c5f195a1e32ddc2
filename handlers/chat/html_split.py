"""Split a Telegram HTML message that is too long into well-formed parts.

Telegram refuses messages over 4096 characters (counted after entity parsing). We cut between words
(preferring a line break in the last third of a part), never inside a tag or an entity, close the tags
still open at the cut and reopen them in the next part.
"""

from __future__ import annotations

import html
import re

TELEGRAM_LIMIT = 4096
_TOKEN = re.compile(r"(<[^>]+>)")
_TAG = re.compile(r"<(/?)([a-zA-Z-]+)[^>]*>")
_WORDS = re.compile(r"(\s+)")


def visible_length(fragment: str) -> int:
    """The length Telegram counts: text without tags, entities decoded."""
    return len(html.unescape(_TOKEN.sub("", fragment)))


def _units(text: str, limit: int) -> list[tuple[str, str]]:
    """Tags and words (plain text), with words longer than the limit cut."""
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


def split_html(text: str, limit: int = TELEGRAM_LIMIT) -> list[str]:
    """Split ``text`` into parts that each fit in ``limit`` visible characters and are valid HTML.

    Args:
        text: Telegram-HTML message (user values already escaped).
        limit: maximum visible characters per part.

    Returns:
        ``[text]`` when the message fits, else several parts.
    """
    if visible_length(text) <= limit:
        return [text]
    parts: list[str] = []
    open_tags: list[tuple[str, str]] = []
    pieces: list[str] = []  # HTML of the current part
    length = 0
    line_break: tuple[int, int, list[tuple[str, str]]] | None = None  # (pieces index, length, open tags)

    def close(upto: int, tags: list[tuple[str, str]]) -> None:
        body = "".join(pieces[:upto]) + "".join(f"</{name}>" for name, _ in reversed(tags))
        if body.strip() and visible_length(body):
            parts.append(body.strip())

    for kind, value in _units(text, limit):
        if kind == "tag":
            match = _TAG.fullmatch(value)
            assert match is not None
            closing, name = match.group(1), match.group(2).lower()
            if closing:
                for index in range(len(open_tags) - 1, -1, -1):
                    if open_tags[index][0] == name:
                        del open_tags[index]
                        break
            else:
                open_tags.append((name, value))
            pieces.append(value)
            continue
        if length + len(value) > limit:
            if line_break is not None and line_break[1] > limit * 2 // 3:
                index, _, tags_then = line_break
                close(index, tags_then)
                carried = pieces[index:]
                pieces = [opening for _, opening in tags_then] + carried
                length -= line_break[1]
            else:
                close(len(pieces), open_tags)
                pieces = [opening for _, opening in open_tags]
                length = 0
                if value.isspace():
                    line_break = None
                    continue
            line_break = None
        pieces.append(html.escape(value, quote=False))
        length += len(value)
        if "\n" in value:
            line_break = (len(pieces), length, list(open_tags))
    close(len(pieces), open_tags)
    return parts
