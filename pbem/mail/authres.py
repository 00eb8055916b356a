"""Authentication-Results (RFC 8601) from the MTA in front of us: did the sender's domain
vouch for this mail? Only the topmost header that names our own MTA (its authserv-id,
PBEM_AUTHSERV_ID) counts: our MTA writes its header above the mail it received, and anyone
can write such a header into a mail, where a forger would write "pass" (RFC 8601 §5: a
receiver ignores those). `headers` are in the mail's order, topmost first.

    verdict(headers, from_domain, authserv_id) -> None (no objection) or why it fails

A DMARC fail, or a DKIM fail for the From domain with no DKIM pass for it, is a failure;
anything else (no header of ours, none, neutral, temperror) is no objection: the seat's
secret address and the From check stand as before."""

import re

_RESULT = re.compile(r"\b(dkim|dmarc)\s*=\s*([a-z]+)(?:\s*\([^)]*\))?((?:\s+[a-z.]+=\S+)*)",
                     re.I)
_PROP = re.compile(r"\b(header\.d|header\.from|header\.i)\s*=\s*([^\s;]+)", re.I)


def verdict(headers: list[str], from_domain: str, authserv_id: str) -> str | None:
    """Why the mail fails its domain's check, by our MTA's word; None if it does not."""
    ours = _topmost(headers, authserv_id) if from_domain else None
    if ours is None:
        return None
    dkim: list[tuple[str, set[str]]] = []
    dmarc: list[tuple[str, set[str]]] = []
    for method in ours.split(";"):
        m = _RESULT.search(method)
        if not m:
            continue
        kind, result = m.group(1).lower(), m.group(2).lower()
        domains = {d.lstrip("@").split("@")[-1].lower() for _, d in _PROP.findall(method)}
        (dkim if kind == "dkim" else dmarc).append((result, domains))
    domain = from_domain.lower()
    if any(r == "fail" for r, _ in dmarc):
        return f"{domain}'s DMARC check failed at our mail server: it does not vouch for it"
    failed = [d for r, d in dkim if r == "fail" and domain in d]
    passed = [d for r, d in dkim if r == "pass" and domain in d]
    if failed and not passed:
        return f"its DKIM signature for {domain} did not verify at our mail server"
    return None


def _topmost(headers: list[str], authserv_id: str) -> str | None:
    """The results in the first header written by our MTA; None if there is none (or we
    have no authserv-id)."""
    if not authserv_id:
        return None
    for value in headers:
        ours, _, rest = value.partition(";")
        if ours.lower().split()[:1] == [authserv_id.lower()]:  # "id" or "id version"
            return rest
    return None
