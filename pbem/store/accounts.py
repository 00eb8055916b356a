"""The secret addresses that prove who sends a command (issue 29): a player's account
address `pbem+KEY@DOMAIN` (Player.account_key) and a league's organiser address
`organiser+KEY@DOMAIN` (League.organiser_key). Every mail to a player names theirs in its
footer, added where the outbox builds the wire message (pbem.store.outbox), so no mail to a
player goes without it and no mail to anyone else carries it."""

from markupsafe import escape
from sqlmodel import select

from .models import League, Outbox, Player

ACCOUNT, ORGANISER = "pbem+", "organiser+"
WARNING = "keep it private: it is how we know it is you"
HEADER = "X-Pbem-Account"  # the footed copy's account address, for the unsubscribe mailto


def account_address(player, domain: str) -> str:
    return f"{ACCOUNT}{player.account_key}@{domain}"


def organiser_address(league, domain: str) -> str:
    return f"{ORGANISER}{league.organiser_key}@{domain}"


def keyed(address: str, domain: str) -> tuple[str, str] | None:
    """("account" or "organiser", KEY) for one of our keyed addresses, else None."""
    local, _, at = address.lower().rpartition("@")
    if at != domain.lower():
        return None
    for kind, prefix in (("account", ACCOUNT), ("organiser", ORGANISER)):
        if local.startswith(prefix) and len(local) > len(prefix):
            return kind, local[len(prefix):]
    return None


def footers(s, players: dict[str, Player], domain: str) -> dict[str, tuple[str, str]]:
    """Each player's (account address, footer) by address; the footer names the account
    address, and the organiser address of each league they organise."""
    if not players:
        return {}
    by_id = {p.id: p for p in players.values()}
    leagues: dict[int, list] = {}
    for lg in s.exec(select(League).where(League.organiser_id.in_(by_id))
                     .order_by(League.id)).all():
        leagues.setdefault(lg.organiser_id, []).append(lg)
    out = {}
    for email, p in players.items():
        lines = [f"Your account address ({WARNING}):", account_address(p, domain)]
        for lg in leagues.get(p.id, []):
            lines += [f"Your organiser address for league {lg.id} ({WARNING}):",
                      organiser_address(lg, domain)]
        out[email] = account_address(p, domain), "\n".join(lines)
    return out


def footed(mail: Outbox, found: tuple[str, str] | None) -> Outbox:
    """The mail with the footer below its text and HTML, and its List-Unsubscribe mailto to
    the account address (`found`: from `footers`; an unsaved copy: the row as written
    stays as it was)."""
    if not found:
        return mail
    account, footer = found
    copy = Outbox(**{c.key: getattr(mail, c.key) for c in Outbox.__table__.columns})
    copy.headers = {**(mail.headers or {}), HEADER: account}
    copy.body_text = f"{mail.body_text.rstrip()}\n\n-- \n{footer}\n"
    if mail.body_html:
        html = "<br>".join(str(escape(x)) for x in footer.split("\n"))
        block = f'<p style="color:#666;font-size:smaller">{html}</p>'
        at = mail.body_html.lower().rfind("</body>")
        copy.body_html = (mail.body_html[:at] + block + mail.body_html[at:] if at >= 0
                          else mail.body_html + block)
    return copy
