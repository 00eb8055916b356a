"""pbem.mail.authres: only our MTA's Authentication-Results count, and a DMARC or DKIM
failure for the From domain is a failure; everything else is no objection."""

import pytest

from pbem.mail.authres import verdict

OURS = "mx.pbem.example"


@pytest.mark.parametrize("headers, why", [
    ([f"{OURS}; dmarc=fail (p=reject) header.from=example.org"], "DMARC"),
    ([f"{OURS}; dkim=fail (bad signature) header.d=example.org; spf=pass"], "DKIM"),
    ([f"{OURS} 1; dkim=fail header.i=@example.org"], "DKIM"),  # a version after the id
    ([f"{OURS.upper()}; dmarc=fail header.from=example.org"], "DMARC"),
])
def test_a_failure_by_our_mta_refuses(headers, why):
    assert why in verdict(headers, "example.org", OURS)


@pytest.mark.parametrize("headers", [
    [],
    [f"{OURS}; dmarc=pass header.from=example.org; dkim=pass header.d=example.org"],
    [f"{OURS}; dkim=fail header.d=other.example; dkim=pass header.d=example.org"],
    [f"{OURS}; dkim=fail header.d=example.org; dkim=pass header.d=example.org"],
    [f"{OURS}; dkim=fail header.d=mailer.example"],  # a third party's signature failed
    [f"{OURS}; dmarc=none header.from=example.org; dkim=none"],
    [f"{OURS}; dmarc=temperror header.from=example.org"],
    ["evil.example; dmarc=fail header.from=example.org"],  # not our MTA: anyone's words
    [f"x.{OURS}; dmarc=fail header.from=example.org"],
])
def test_anything_else_is_no_objection(headers):
    assert verdict(headers, "example.org", OURS) is None


def test_without_an_authserv_id_nothing_is_read():
    assert verdict([f"{OURS}; dmarc=fail header.from=example.org"], "example.org", "") is None


@pytest.mark.parametrize("headers, why", [
    # our MTA's word on top; below it, the sender's own header in our name (RFC 8601 §5)
    ([f"{OURS}; dkim=fail header.d=example.org", f"{OURS}; dkim=pass header.d=example.org"],
     "DKIM"),
    ([f"{OURS}; dmarc=fail header.from=example.org",
      f"{OURS}; dmarc=pass header.from=example.org"], "DMARC"),
    (["other.example; dkim=pass header.d=example.org",  # another's, above ours: not ours
      f"{OURS}; dkim=fail header.d=example.org", f"{OURS}; dkim=pass header.d=example.org"],
     "DKIM"),
    ([f"{OURS}; dkim=pass header.d=example.org",
      f"{OURS}; dmarc=fail header.from=example.org"], None),
])
def test_only_the_topmost_header_of_our_mta_counts(headers, why):
    got = verdict(headers, "example.org", OURS)
    assert (why in got) if why else got is None, got
