"""Long messages split cleanly at Telegram's 4096-character limit."""

import html

from notifications.telegram_text import TEXT_LIMIT, split_html, visible_length


def _well_formed(part: str) -> bool:
    stack = []
    for closing, name in __import__("re").findall(r"<(/?)([a-z]+)[^>]*>", part):
        if closing:
            if not stack or stack.pop() != name:
                return False
        else:
            stack.append(name)
    return not stack


def test_a_short_message_is_left_alone() -> None:
    assert split_html("<b>Olá</b>, Maria") == ["<b>Olá</b>, Maria"]


def test_a_long_message_splits_between_words_with_tags_closed_and_reopened() -> None:
    line = "Rua das Flores &amp; <i>Avenida Brasil</i> — protocolo REP-2026-000123."
    text = "<b>Histórico</b>\n" + "\n".join([line] * 300)
    parts = split_html(text)
    assert len(parts) > 1
    assert all(visible_length(part) <= TEXT_LIMIT for part in parts)
    assert all(_well_formed(part) for part in parts)
    rejoined = " ".join(html.unescape(__import__("re").sub(r"<[^>]+>", "", p)) for p in parts).split()
    original = html.unescape(__import__("re").sub(r"<[^>]+>", "", text)).split()
    assert rejoined == original  # nothing lost, nothing cut inside a word


def test_a_tag_spanning_the_cut_is_closed_and_reopened() -> None:
    text = "<b>" + "palavra " * 1000 + "</b>"
    parts = split_html(text)
    assert len(parts) == 2
    assert parts[0].startswith("<b>") and parts[0].endswith("</b>")
    assert parts[1].startswith("<b>") and parts[1].endswith("</b>")


def test_a_word_longer_than_the_limit_is_cut_hard() -> None:
    parts = split_html("x" * 5000)
    assert [visible_length(p) for p in parts] == [4096, 904]
