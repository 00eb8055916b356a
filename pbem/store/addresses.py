"""The one check for every mail address the system stores or mails (issue 12): syntax only,
by email-validator, never a DNS lookup (a page or a mail must not wait on the network).
And the one pattern of a plain address, which an SMTP command may carry as it is."""

import re
import unicodedata

from email_validator import EmailNotValidError, validate_email

from ..i18n import _

MAX_LENGTH = 254  # RFC 5321: the longest path a mail server must take
_ATOM = r"[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+"
# dot-atoms in ASCII on both sides of the @: no quotes, spaces, controls or address literal
_PLAIN = re.compile(rf"{_ATOM}(?:\.{_ATOM})*@{_ATOM}(?:\.{_ATOM})*\Z")


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
        raise AddressError(_("a mail address is needed"))
    if len(text) > MAX_LENGTH:
        raise AddressError(_("%(address)s is not a mail address: over %(most)s characters")
                           % {"address": repr(shown), "most": MAX_LENGTH})
    try:
        found = validate_email(text.strip(), check_deliverability=False, allow_smtputf8=False,
                               strict=True, test_environment=True)
    except EmailNotValidError:
        raise AddressError(_("%(address)s is not a mail address: %(why)s")
                           % {"address": repr(shown), "why": _why(text.strip())}) from None
    assert found.ascii_email is not None  # (always set without SMTPUTF8)
    return found.ascii_email.lower()


def _why(text: str) -> str:
    """Why email-validator refused `text`, in our own words (its own are English and have
    no catalogue), by what a plain look at the address finds wrong with it."""
    local, at, domain = text.rpartition("@")
    if not at:
        return _("it has no @")
    if any(c.isspace() or unicodedata.category(c).startswith("C") for c in text):
        return _("it holds a space or a control character")
    if any(c in '"<>()[],;:\\' for c in text):
        return _("it holds quotes, brackets or a name beside the address")
    if not local.isascii():
        return _("we send only to addresses in plain Latin letters before the @")
    if len(local) > 64:
        return _("the part before the @ is over 64 characters")
    if local.startswith(".") or local.endswith(".") or ".." in local:
        return _("a dot may not begin or end the part before the @, nor come twice")
    return _("the part after the @ is not a domain we can send mail to")


def is_plain(address: str) -> bool:
    """Can `address` go between < and > in an SMTP command as it is (no SMTPUTF8, no
    quoting, nothing that could end the command)?"""
    return _PLAIN.match(address) is not None
