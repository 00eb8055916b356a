"""Whole numbers from what people type, in a form field or a mail's line: ASCII digits
only. `str.isdigit()` is True for '²' (which int() refuses: a 500) and for '٣' (which int()
reads as 3); neither is a number anyone types on purpose here."""

import re

MAX_ID = 2**31 - 1  # what an integer column holds
_DIGITS = re.compile(r"[0-9]{1,10}")  # (more are past MAX_ID: refused unread)


def whole(text: object, most: int = MAX_ID) -> int | None:
    """The number `text` writes in ASCII digits if it is one from 0 to `most`, else None."""
    if not isinstance(text, str) or not _DIGITS.fullmatch(text):
        return None
    n = int(text)
    return n if n <= most else None
