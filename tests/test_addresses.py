"""The one address check (pbem.store.addresses): what passes, as it is stored, and what is
refused, with why."""

import pytest

from pbem.store.addresses import AddressError, check_address


@pytest.mark.parametrize("text, stored", [
    ("ann@example.org", "ann@example.org"),
    ("  Ann.Lee+spades@Example.ORG ", "ann.lee+spades@example.org"),
    ("a@bücher.de", "a@xn--bcher-kva.de"), ("x@x.test", "x@x.test"),
    ("a" * 64 + "@example.org", "a" * 64 + "@example.org"),
])
def test_good_addresses_are_stored_lowercase(text, stored):
    assert check_address(text) == stored


@pytest.mark.parametrize("text, why", [
    ("", "needed"), ("ann", "@-sign"), ("ann@example.org\r\nBcc: b@example.org", "U+000D"),
    ("ann\x00@example.org", "invalid characters"), ("a b@example.org", "SPACE"),
    ("Ann <ann@example.org>", "display name"), ('"a b"@example.org', "Quoting"),
    ("a@[127.0.0.1]", "bracketed"), ("a" * 65 + "@example.org", "too long"),
    ("a@" + "b" * 250 + ".org", "over 254 characters"), ("a@pbem.localhost", "special-use"),
    ("ü@example.org", "Internationalized"), ("a@example", "period"),
])
def test_anything_else_is_refused_saying_why(text, why):
    with pytest.raises(AddressError, match="is not a mail address|needed") as e:
        check_address(text)
    assert why in str(e.value)
    assert "\n" not in str(e.value) and "\r" not in str(e.value)  # safe to show or mail
