"""The SMTP server reads MAIL FROM and RCPT TO addresses as aiosmtpd's own parser does: the
plain ones by a pattern (pbem.mail.inbound._PlainAddresses), all others by the parser."""

import pytest
from aiosmtpd.smtp import SMTP
from hypothesis import given, settings
from hypothesis import strategies as st

from pbem.mail.inbound import _LMTP, _PLAIN_ADDRESS, _SMTP


def _read(server, arg):
    """What the server makes of `arg`, or the error it raises (aiosmtpd's own, on "<")."""
    try:
        return server._getaddr(arg)
    except Exception as e:
        return type(e)


def _servers(limit):
    ours, theirs = _SMTP.__new__(_SMTP), SMTP.__new__(SMTP)
    ours.local_part_limit = theirs.local_part_limit = limit
    return ours, theirs


CASES = ["<ann@example.org>", "<play+abc2def@pbem.localhost> SIZE=1234",
         "<a@b>  BODY=8BITMIME SIZE=1", "<a@b>\tSIZE=1", "<a@b> SIZE=1 ", "<>", "",
         "<a.b@[1.2.3.4]>", '<"a b"@x>', "<a..b@x>", "<.a@x>", "<a.@x>", "<a@b.>",
         "<a@b> (comment) SIZE=1", "<a@b>(c)", "ann@example.org", " <a@b>", "<a@b",
         "<a@b>x", "<a@-b>", "<a@b..c>", "<@x,@y:a@b>", "<é@x>", "<a@é.x>", "<a@b>\r\n",
         "<" + "x" * 65 + "@b>", "<" + "x" * 64 + "@b>", "<a b@x>", "<a@b> SIZE=1\x00"]


@pytest.mark.parametrize("limit", [0, 64])
@pytest.mark.parametrize("arg", CASES)
def test_an_address_is_read_as_aiosmtpd_reads_it(arg, limit):
    ours, theirs = _servers(limit)
    assert _read(ours, arg) == _read(theirs, arg)


def test_the_plain_pattern_takes_the_usual_addresses():
    assert _PLAIN_ADDRESS.fullmatch("<play+abc2def@pbem.localhost> SIZE=1234")
    assert _PLAIN_ADDRESS.fullmatch("<ann.lee@mail.example.org>")
    assert issubclass(_LMTP, SMTP)


@settings(max_examples=3000, deadline=None)
@given(st.text(alphabet="ab.@<>-+ \t()\"[]:,\\=é\r\n", max_size=24), st.sampled_from([0, 3]))
def test_any_address_is_read_as_aiosmtpd_reads_it(arg, limit):
    ours, theirs = _servers(limit)
    assert _read(ours, arg) == _read(theirs, arg)
