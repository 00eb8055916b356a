"""compose._esc, the table rows' escape in one C call, writes what markupsafe's escape
writes."""

from hypothesis import given
from hypothesis import strategies as hs
from markupsafe import escape

from pbem import compose


@given(value=hs.text() | hs.integers())
def test_plain_escape_is_markupsafes(value):
    """compose._esc (the table's rows) writes what markupsafe.escape writes."""
    assert compose._esc(value) == str(escape(value))


def test_plain_escape_covers_every_character_escape_changes():
    assert compose._esc("<a href='x'>\"&\"</a>") == str(escape("<a href='x'>\"&\"</a>"))
