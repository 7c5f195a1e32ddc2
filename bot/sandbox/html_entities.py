"""Telegram's ``parse_mode=HTML``: markup to plain text plus message entities, with Telegram's errors.

The rules follow TDLib's ``parse_html`` (what the Bot API server runs): the supported tags, the four
named character references (``&lt; &gt; &amp; &quot;``) plus numeric ones, and the same error texts
("Unsupported start tag ...", "Can't find end tag corresponding to start tag ...") with byte offsets
into the UTF-8 markup. Entity offsets and lengths are in UTF-16 code units, like the Bot API's.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

_TAG_TYPES = {
    "b": "bold",
    "strong": "bold",
    "i": "italic",
    "em": "italic",
    "u": "underline",
    "ins": "underline",
    "s": "strikethrough",
    "strike": "strikethrough",
    "del": "strikethrough",
    "span": "spoiler",
    "tg-spoiler": "spoiler",
    "a": "text_link",
    "code": "code",
    "pre": "pre",
    "blockquote": "blockquote",
    "tg-emoji": "custom_emoji",
}
_SPECIAL = re.compile(r"[<&]")
_NAMED_REFERENCES = {"lt": "<", "gt": ">", "amp": "&", "quot": '"'}
_SPACES = " \t\r\n\f\v"


class EntityParseError(ValueError):
    """The markup is not valid Telegram HTML; the message is TDLib's text (after "can't parse entities: ")."""


@dataclass(frozen=True)
class FormattedText:
    """Plain text and its entities, as Telegram stores a message.

    Attributes:
        text: the text without markup.
        entities: Bot API ``MessageEntity`` objects (``type``, ``offset``, ``length`` and ``url``/``language``).
    """

    text: str
    entities: list[dict[str, Any]] = field(default_factory=list)


def utf16_length(text: str) -> int:
    """Length of ``text`` in UTF-16 code units (the unit of entity offsets)."""
    if text.isascii():
        return len(text)
    return len(text.encode("utf-16-le")) // 2


@dataclass
class _OpenTag:
    name: str
    start: int
    entity: dict[str, Any] | None


def _byte_offset(source: str, index: int) -> int:
    return len(source[:index].encode("utf-8"))


def _decode_reference(source: str, pos: int) -> tuple[str, int] | None:
    """Decode the character reference at ``source[pos] == "&"``: (character, next position) or None."""
    end = pos + 1
    n = len(source)
    if end < n and source[end] == "#":
        end += 1
        value = 0
        if end < n and source[end] == "x":
            end += 1
            while end < n and source[end] in "0123456789abcdefABCDEF":
                value = value * 16 + int(source[end], 16)
                end += 1
        else:
            while end < n and source[end].isdigit() and source[end].isascii():
                value = value * 10 + int(source[end])
                end += 1
        if value == 0 or value >= 0x10FFFF or end - pos >= 10 or 0xD800 <= value <= 0xDFFF:
            return None
        character = chr(value)
    else:
        while end < n and source[end].isascii() and source[end].isalpha():
            end += 1
        named = _NAMED_REFERENCES.get(source[pos + 1 : end])
        if named is None:
            return None
        character = named
    if end < n and source[end] == ";":
        end += 1
    return character, end


def _skip_spaces(source: str, pos: int) -> int:
    while pos < len(source) and source[pos] in _SPACES:
        pos += 1
    return pos


def _read_token(source: str, pos: int) -> tuple[str, int]:
    """An unquoted attribute value (letters, digits, ``.`` and ``-``), lower-cased, and the position after it."""
    n = len(source)
    token_begin = pos
    while pos < n and (source[pos].isalnum() or source[pos] in ".-"):
        pos += 1
    if pos < n and source[pos] not in _SPACES and source[pos] != ">":
        raise EntityParseError(f"Unexpected end of name token at byte offset {_byte_offset(source, token_begin)}")
    return source[token_begin:pos].lower(), pos


def _read_quoted(source: str, pos: int) -> tuple[str, int]:
    """A quoted attribute value with its character references decoded, and the position after the closing quote."""
    n = len(source)
    quote = source[pos]
    pos += 1
    chars: list[str] = []
    while pos < n and source[pos] != quote:
        if source[pos] == "&":
            decoded = _decode_reference(source, pos)
            if decoded is not None:
                chars.append(decoded[0])
                pos = decoded[1]
                continue
        chars.append(source[pos])
        pos += 1
    if pos < n:
        pos += 1
    return "".join(chars), pos


def _read_name(source: str, pos: int, tag: str, begin: int) -> tuple[str, int]:
    """An attribute's name, lower-cased (never empty), and the position after it."""
    n = len(source)
    name_begin = pos
    while pos < n and source[pos] not in _SPACES and source[pos] not in "=>":
        pos += 1
    name = source[name_begin:pos].lower()
    if not name:
        raise EntityParseError(f'Empty attribute name in the tag "{tag}" at byte offset {_byte_offset(source, begin)}')
    return name, pos


def _read_attributes(source: str, pos: int, tag: str, begin: int) -> tuple[dict[str, str], int]:
    """Read ``name=value`` pairs up to the closing ``>``; return them and the position after ``>``."""
    n = len(source)
    attributes: dict[str, str] = {}
    while True:
        pos = _skip_spaces(source, pos)
        if pos >= n:
            raise EntityParseError(f"Unclosed start tag at byte offset {_byte_offset(source, begin)}")
        if source[pos] == ">":
            return attributes, pos + 1
        name, pos = _read_name(source, pos, tag, begin)
        pos = _skip_spaces(source, pos)
        if pos >= n:
            raise EntityParseError(f"Unclosed start tag at byte offset {_byte_offset(source, begin)}")
        if source[pos] != "=":
            if tag == "blockquote" and name == "expandable":
                attributes[name] = ""
                continue
            raise EntityParseError(
                f'Expected equal sign in declaration of an attribute of the tag "{tag}" '
                f"at byte offset {_byte_offset(source, begin)}"
            )
        pos = _skip_spaces(source, pos + 1)
        if pos >= n:
            raise EntityParseError(f"Unclosed start tag at byte offset {_byte_offset(source, begin)}")
        value, pos = _read_quoted(source, pos) if source[pos] in "'\"" else _read_token(source, pos)
        if pos >= n:
            raise EntityParseError(f"Unclosed start tag at byte offset {_byte_offset(source, begin)}")
        attributes[name] = value


def _normalize_url(url: str) -> str | None:
    url = url.strip()
    if not url:
        return None
    if re.match(r"^[a-zA-Z][a-zA-Z0-9+.-]*:", url):
        scheme = url.split(":", 1)[0].lower()
        if scheme in {"http", "https", "tg", "ton", "mailto"}:
            return url
        return None
    return f"http://{url}"


def _entity_for(tag: str, attributes: dict[str, str], source: str, begin: int) -> dict[str, Any] | None:
    kind = _TAG_TYPES[tag]
    if tag == "span" and attributes.get("class") != "tg-spoiler":
        raise EntityParseError(f'Tag "span" must have class "tg-spoiler" at byte offset {_byte_offset(source, begin)}')
    entity: dict[str, Any] = {"type": kind}
    if tag == "a":
        entity["url"] = attributes.get("href", "")
    elif tag == "blockquote" and "expandable" in attributes:
        entity["type"] = "expandable_blockquote"
    elif tag == "tg-emoji":
        emoji_id = attributes.get("emoji-id", "")
        if not emoji_id.isdigit():
            return None
        entity["custom_emoji_id"] = emoji_id
    elif tag == "code":
        language = attributes.get("class", "")
        if language.startswith("language-"):
            entity["language"] = language.removeprefix("language-")
    return entity


def _read_end_tag(source: str, pos: int, begin: int, open_name: str) -> int:
    """The end tag whose name starts at ``pos`` closes ``open_name`` (or names nothing); the position after ``>``."""
    n = len(source)
    name_begin = pos
    while pos < n and source[pos] not in _SPACES and source[pos] != ">":
        pos += 1
    end_name = source[name_begin:pos].lower()
    pos = _skip_spaces(source, pos)
    if pos >= n or source[pos] != ">":
        raise EntityParseError(f"Unclosed end tag at byte offset {_byte_offset(source, begin)}")
    if end_name and end_name != open_name:
        raise EntityParseError(
            f"Unmatched end tag at byte offset {_byte_offset(source, begin)}, "
            f'expected "</{open_name}>", found "</{end_name}>"'
        )
    return pos + 1


def _read_start_tag(source: str, pos: int, begin: int) -> tuple[str, dict[str, str], int]:
    """A supported start tag's name and attributes, and the position after its ``>``."""
    n = len(source)
    while pos < n and source[pos] not in _SPACES and source[pos] != ">":
        pos += 1
    if pos >= n:
        raise EntityParseError(f"Unclosed start tag at byte offset {_byte_offset(source, begin)}")
    tag = source[begin + 1 : pos].lower()
    if tag not in _TAG_TYPES:
        raise EntityParseError(f'Unsupported start tag "{tag}" at byte offset {_byte_offset(source, begin)}')
    attributes, pos = _read_attributes(source, pos, tag, begin)
    return tag, attributes, pos


def parse_html(source: str) -> FormattedText:
    """Parse Telegram HTML markup.

    Args:
        source: the ``text`` or ``caption`` sent with ``parse_mode=HTML``.

    Returns:
        The plain text and its entities (not yet trimmed; see :func:`trim`).

    Raises:
        EntityParseError: with TDLib's description of the first error.
    """
    out: list[str] = []
    offset = 0  # UTF-16 offset of the end of ``out``
    stack: list[_OpenTag] = []
    entities: list[dict[str, Any]] = []
    pos = 0
    n = len(source)
    while pos < n:
        match = _SPECIAL.search(source, pos)
        if match is None:
            chunk = source[pos:]
            out.append(chunk)
            offset += utf16_length(chunk)
            break
        special = match.start()
        if special > pos:
            chunk = source[pos:special]
            out.append(chunk)
            offset += utf16_length(chunk)
        pos = special
        if source[pos] == "&":
            character, pos = _decode_reference(source, pos) or ("&", pos + 1)
            out.append(character)
            offset += utf16_length(character)
            continue
        begin = pos
        pos += 1
        if pos < n and source[pos] == "/":
            if not stack:
                raise EntityParseError(f"Unexpected end tag at byte offset {_byte_offset(source, begin)}")
            pos = _read_end_tag(source, pos + 1, begin, stack[-1].name)
            _close(stack.pop(), offset, stack, entities, out)
            continue
        tag, attributes, pos = _read_start_tag(source, pos, begin)
        stack.append(_OpenTag(tag, offset, _entity_for(tag, attributes, source, begin)))
    if stack:
        raise EntityParseError(f'Can\'t find end tag corresponding to start tag "{stack[-1].name}"')
    entities.sort(key=lambda e: (e["offset"], -e["length"]))
    return FormattedText("".join(out), entities)


def _close(
    opened: _OpenTag, offset: int, stack: list[_OpenTag], entities: list[dict[str, Any]], out: list[str]
) -> None:
    entity = opened.entity
    length = offset - opened.start
    if entity is None or length <= 0:
        return
    if entity["type"] == "code":
        parent = stack[-1] if stack else None
        if parent is not None and parent.entity is not None and parent.entity["type"] == "pre":
            if "language" in entity:  # <pre><code class="language-x"> is one pre entity with a language
                parent.entity["language"] = entity["language"]
            return
        entity.pop("language", None)
    if entity["type"] == "text_link":
        url = entity["url"] or _text_of_last(out, length)
        normalized = _normalize_url(url)
        if normalized is None:
            return
        entity["url"] = normalized
    entity["offset"] = opened.start
    entity["length"] = length
    entities.append(entity)


def _text_of_last(out: list[str], utf16_units: int) -> str:
    text = "".join(out)
    encoded = text.encode("utf-16-le")
    return encoded[len(encoded) - 2 * utf16_units :].decode("utf-16-le")


def trim(formatted: FormattedText) -> FormattedText:
    """Strip leading and trailing whitespace as Telegram does, keeping entities aligned.

    Args:
        formatted: parsed text and entities.

    Returns:
        The trimmed text; entities are clipped to it and empty ones dropped.
    """
    text = formatted.text
    stripped = text.strip()
    if stripped == text:
        return formatted
    lead = len(text) - len(text.lstrip())  # whitespace is in the BMP: characters == UTF-16 units
    total = utf16_length(stripped)
    entities: list[dict[str, Any]] = []
    for entity in formatted.entities:
        start = max(entity["offset"] - lead, 0)
        end = min(entity["offset"] + entity["length"] - lead, total)
        if end > start:
            entities.append({**entity, "offset": start, "length": end - start})
    return FormattedText(stripped, entities)


def to_html(formatted: FormattedText) -> str:
    """Render text and entities back to Telegram HTML (handy in assertions).

    Args:
        formatted: text and properly nested entities (as :func:`parse_html` returns).

    Returns:
        Markup that :func:`parse_html` turns into the same text and entities.
    """
    units = formatted.text.encode("utf-16-le")
    opens: dict[int, list[dict[str, Any]]] = {}
    closes: dict[int, list[dict[str, Any]]] = {}
    for entity in formatted.entities:
        opens.setdefault(entity["offset"], []).append(entity)
        closes.setdefault(entity["offset"] + entity["length"], []).append(entity)
    pieces: list[str] = []
    total = len(units) // 2
    for index in range(total + 1):
        for entity in reversed(closes.get(index, [])):
            pieces.append(_end_tag(entity))
        for entity in sorted(opens.get(index, []), key=lambda e: -e["length"]):
            pieces.append(_start_tag(entity))
        if index < total:
            unit = units[2 * index : 2 * index + 2]
            if 0xD800 <= int.from_bytes(unit, "little") <= 0xDBFF:
                continue  # high surrogate: emitted with its pair
            if 0xDC00 <= int.from_bytes(unit, "little") <= 0xDFFF:
                unit = units[2 * index - 2 : 2 * index + 2]
            pieces.append(_escape(unit.decode("utf-16-le")))
    return "".join(pieces)


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")


_START_TAGS = {
    "bold": "<b>",
    "italic": "<i>",
    "underline": "<u>",
    "strikethrough": "<s>",
    "spoiler": "<tg-spoiler>",
    "code": "<code>",
    "blockquote": "<blockquote>",
    "expandable_blockquote": "<blockquote expandable>",
}
_END_TAGS = {
    "bold": "</b>",
    "italic": "</i>",
    "underline": "</u>",
    "strikethrough": "</s>",
    "spoiler": "</tg-spoiler>",
    "code": "</code>",
    "blockquote": "</blockquote>",
    "expandable_blockquote": "</blockquote>",
    "text_link": "</a>",
    "custom_emoji": "</tg-emoji>",
}


def _start_tag(entity: dict[str, Any]) -> str:
    kind = entity["type"]
    if kind == "text_link":
        return f'<a href="{_escape(entity["url"])}">'
    if kind == "pre":
        language = entity.get("language")
        return f'<pre><code class="language-{_escape(language)}">' if language else "<pre>"
    if kind == "custom_emoji":
        return f'<tg-emoji emoji-id="{entity["custom_emoji_id"]}">'
    return _START_TAGS.get(kind, "")


def _end_tag(entity: dict[str, Any]) -> str:
    if entity["type"] == "pre":
        return "</code></pre>" if entity.get("language") else "</pre>"
    return _END_TAGS.get(entity["type"], "")
