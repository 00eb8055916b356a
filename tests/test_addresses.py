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
    ("", "needed"), ("ann", "no @"), ("ann@example.org\r\nBcc: b@example.org", "control"),
    ("ann\x00@example.org", "control character"), ("a b@example.org", "a space"),
    ("Ann <ann@example.org>", "a space"), ('"a"@example.org', "quotes"),
    ("a@[127.0.0.1]", "brackets"), ("a" * 65 + "@example.org", "over 64 characters"),
    ("a@" + "b" * 250 + ".org", "over 254 characters"), ("a@pbem.localhost", "not a domain"),
    ("ü@example.org", "plain Latin letters"), ("a@example", "not a domain"),
    ("a..b@example.org", "nor come twice"), ("ann@example.org>", "brackets"),
])
def test_anything_else_is_refused_saying_why(text, why):
    with pytest.raises(AddressError, match="is not a mail address|needed") as e:
        check_address(text)
    assert why in str(e.value)
    assert "\n" not in str(e.value) and "\r" not in str(e.value)  # safe to show or mail


def test_the_reason_is_ours_and_comes_from_the_catalogue():
    """email-validator's own reason is English with no catalogue: never shown; ours is
    told in the asker's language (every word marked in the pseudo-language)."""
    from pbem.i18n import language
    from tests.pseudo import leftover_words, pseudo

    for text in ("ann", "a b@example.org", "ü@example.org", "a@example", "a" * 65 + "@x.org"):
        with pseudo(), pytest.raises(AddressError) as e:
            check_address(text)
        assert leftover_words(str(e.value).replace(repr(text), " ")) == [], str(e.value)
        with language("de"), pytest.raises(AddressError) as e:
            check_address(text)
        assert "keine Mailadresse" in str(e.value), str(e.value)
    with pytest.raises(AddressError) as e:
        check_address("a@example")
    assert "period" not in str(e.value) and "DNS" not in str(e.value)  # not email-validator's
