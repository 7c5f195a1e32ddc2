"""Telegram HTML as the Bot API parses it: entities in UTF-16 units, TDLib's error texts, trimming."""

from __future__ import annotations

import pytest

from bot.sandbox.html_entities import EntityParseError, FormattedText, parse_html, to_html, trim, utf16_length


def test_nested_tags_give_entities_in_utf16_units() -> None:
    parsed = parse_html("😀 <b>Protocolo <i>nº</i></b> &lt;12&gt; &amp; <a href='https://sapezal.mt.gov.br'>site</a>")

    assert parsed.text == "😀 Protocolo nº <12> & site"
    # the emoji is two UTF-16 units, so "Protocolo" starts at 3, not 2
    assert parsed.entities == [
        {"type": "bold", "offset": 3, "length": 12},
        {"type": "italic", "offset": 13, "length": 2},
        {"type": "text_link", "url": "https://sapezal.mt.gov.br", "offset": 23, "length": 4},
    ]


@pytest.mark.parametrize(
    ("markup", "kind"),
    [
        ("<strong>x</strong>", "bold"),
        ("<em>x</em>", "italic"),
        ("<ins>x</ins>", "underline"),
        ("<del>x</del>", "strikethrough"),
        ('<span class="tg-spoiler">x</span>', "spoiler"),
        ("<code>x</code>", "code"),
        ("<blockquote expandable>x</blockquote>", "expandable_blockquote"),
    ],
)
def test_every_alias_maps_to_its_entity(markup: str, kind: str) -> None:
    assert parse_html(markup).entities == [{"type": kind, "offset": 0, "length": 1}]


def test_pre_with_code_language_is_one_pre_entity() -> None:
    parsed = parse_html('<pre><code class="language-python">print(1)</code></pre>')
    assert parsed.entities == [{"type": "pre", "language": "python", "offset": 0, "length": 8}]


@pytest.mark.parametrize(
    ("markup", "error"),
    [
        ("<foo>x</foo>", 'Unsupported start tag "foo" at byte offset 0'),
        ("é <b>x", 'Can\'t find end tag corresponding to start tag "b"'),
        ("<b>x</i>", 'Unmatched end tag at byte offset 4, expected "</b>", found "</i>"'),
        ("ok</b>", "Unexpected end tag at byte offset 2"),
        ("a < b", 'Unsupported start tag "" at byte offset 2'),
        ("ação <b", "Unclosed start tag at byte offset 7"),  # byte offsets count UTF-8 bytes
        ("<span>x</span>", 'Tag "span" must have class "tg-spoiler" at byte offset 0'),
    ],
)
def test_bad_markup_fails_with_tdlib_text(markup: str, error: str) -> None:
    with pytest.raises(EntityParseError) as raised:
        parse_html(markup)
    assert str(raised.value) == error


def test_unknown_named_references_stay_as_text() -> None:
    assert parse_html("R&eacute; &#233; &#x41;").text == "R&eacute; é A"


def test_trim_strips_whitespace_and_shifts_entities() -> None:
    trimmed = trim(parse_html("\n  <b> Olá </b>\n"))
    assert trimmed == FormattedText("Olá", [{"type": "bold", "offset": 0, "length": 3}])


def test_to_html_round_trips() -> None:
    markup = '<b>Prazo</b>: <i>segunda-feira, <u>4</u></i> 😀 <a href="https://x.org/?a=1&amp;b=2">link</a>'
    parsed = parse_html(markup)
    assert parse_html(to_html(parsed)) == parsed


def test_utf16_length_counts_surrogate_pairs() -> None:
    assert utf16_length("a😀é") == 4
