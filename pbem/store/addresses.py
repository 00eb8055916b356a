"""The one check for every mail address the system stores or mails (issue 12): syntax only,
by email-validator, never a DNS lookup (a page or a mail must not wait on the network)."""

from email_validator import EmailNotValidError, validate_email

MAX_LENGTH = 254  # RFC 5321: the longest path a mail server must take


class AddressError(ValueError):
    """Not a mail address we will store or mail; the message says why, for people."""


def check_address(text: str) -> str:
    """`text` as we store it (lowercase, an international domain in its ASCII form), or
    AddressError. No spaces, controls, quotes, display names or IP literals; at most 254
    characters, 64 before the @. Domains under .test (RFC 2606) pass: they are never
    delivered, and tests and the demo use them."""
    text = text if isinstance(text, str) else ""
    shown = text if len(text) <= 80 else text[:80] + "..."
    if not text.strip():
        raise AddressError("a mail address is needed")
    if len(text) > MAX_LENGTH:
        raise AddressError(f"{shown!r} is not a mail address: over {MAX_LENGTH} characters")
    try:
        found = validate_email(text.strip(), check_deliverability=False, allow_smtputf8=False,
                               strict=True, test_environment=True)
    except EmailNotValidError as e:
        raise AddressError(f"{shown!r} is not a mail address. {e}") from None
    assert found.ascii_email is not None  # allow_smtputf8=False: an ASCII address or an error
    return found.ascii_email.lower()
