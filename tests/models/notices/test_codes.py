"""Verification codes: random, grouped, forgiving to type, stored only as a hash."""

from __future__ import annotations

from models.notices.codes import ALPHABET, code_hash, format_code, new_code, normalize_code, same_hash


def test_a_new_code_is_twelve_crockford_characters_in_groups_of_four() -> None:
    codes = {new_code() for _ in range(200)}
    assert len(codes) == 200
    for code in codes:
        groups = code.split("-")
        assert [len(g) for g in groups] == [4, 4, 4]
        assert all(ch in ALPHABET for ch in "".join(groups))


def test_what_people_type_is_forgiven() -> None:
    assert normalize_code("7k2m qx9d 4hrt") == "7K2MQX9D4HRT"
    assert normalize_code("7K2M-QX9D-4HRO") == "7K2MQX9D4HR0"  # O read as zero
    assert normalize_code("IL2M-QX9D-4HRT") == "112MQX9D4HRT"  # I and L read as one
    assert code_hash("7k2m qx9d 4hrt") == code_hash("7K2M-QX9D-4HRT")
    assert format_code("7k2mqx9d4hrt") == "7K2M-QX9D-4HRT"


def test_things_that_are_not_codes() -> None:
    for typed in ("", "7K2M-QX9D", "7K2M-QX9D-4HRT-0000", "7K2M-QX9D-4HR!", "'; DROP TABLE notice; --"):
        assert normalize_code(typed) is None


def test_hash_comparison() -> None:
    digest = code_hash("7K2M-QX9D-4HRT")
    assert same_hash(digest, code_hash("7k2mqx9d4hrt"))
    assert not same_hash(digest, code_hash("7K2M-QX9D-4HRV"))
