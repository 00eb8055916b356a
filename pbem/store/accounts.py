"""The secret addresses that prove who sends a command (issue 29): a player's account
address `pbem+KEY@DOMAIN` (Player.account_key) and a league's organiser address
`organiser+KEY@DOMAIN` (League.organiser_key). Every mail to a player names theirs in its
footer, added where the outbox builds the wire message (pbem.store.outbox), so no mail to a
player goes without it and no mail to anyone else carries it."""

from typing import NamedTuple, TypeVar

from markupsafe import escape
from sqlmodel import Session, col, select

from ..config import load
from ..i18n import N_, _, language
from . import prefs
from .models import League, Outbox, Player, new_key
from .states import Store

ACCOUNT, ORGANISER = "pbem+", "organiser+"
WARNING = N_("keep it private: it is how we know it is you")
Keyed = TypeVar("Keyed", Player, League)  # a row with a secret address
HEADER = "X-Pbem-Account"  # the footed copy's account address, for the unsubscribe mailto
_COLUMNS = list(Outbox.model_fields)  # its columns, by name


class Footer(NamedTuple):
    account: str  # the account address
    text: str
    html: str


def account_address(player: Player, domain: str) -> str:
    return f"{ACCOUNT}{player.account_key}@{domain}"


def organiser_address(league: League, domain: str) -> str:
    return f"{ORGANISER}{league.organiser_key}@{domain}"


def new_account_key(store: Store, player_id: int) -> Player:
    """A new account address for the player: the old one is refused from now on (at RCPT,
    as any unknown key), for an owner whose address leaked (a forwarded mail's footer)."""
    return _rekeyed(store, Player, player_id, "account_key")


def new_organiser_key(store: Store, league_id: int) -> League:
    """A new organiser address for the league; the old one is refused from now on."""
    return _rekeyed(store, League, league_id, "organiser_key")


def _rekeyed(store: Store, model: type[Keyed], row_id: int, column: str) -> Keyed:
    with store.session() as s:
        row = s.get_one(model, row_id)
        setattr(row, column, new_key())
        s.add(row)
        s.commit()
        s.refresh(row)
        return row


def keyed(address: str, domain: str) -> tuple[str, str] | None:
    """("account" or "organiser", KEY) for one of our keyed addresses, else None."""
    local, _at, at = address.lower().rpartition("@")
    if at != domain.lower():
        return None
    for kind, prefix in (("account", ACCOUNT), ("organiser", ORGANISER)):
        if local.startswith(prefix) and len(local) > len(prefix):
            return kind, local[len(prefix):]
    return None


def footers(s: Session, players: dict[str, Player], domain: str) -> dict[str, Footer]:
    """Each player's footer by address: the account address, the organiser address of
    each league they organise, and the site's privacy and terms links where set
    (PBEM_PRIVACY_URL, PBEM_TERMS_URL); made once a batch, not once a mail."""
    if not players:
        return {}
    by_id = {p.id: p for p in players.values()}
    leagues: dict[int, list[League]] = {}
    for lg in s.exec(select(League).where(col(League.organiser_id).in_(list(by_id)))
                     .order_by(col(League.id))).all():
        leagues.setdefault(lg.organiser_id, []).append(lg)
    out = {}
    links = load().site_links  # the site's privacy notice and terms, where set
    for email, p in players.items():
        with language(prefs.language(p)):  # below a mail in the player's language
            out[email] = _footer(p, leagues.get(p.id or 0, []), links, domain)
    return out


def _footer(p: Player, leagues: list[League], links: list[tuple[str, str]], domain: str
            ) -> Footer:
    warning = _(WARNING)
    lines = [_("Your account address (%(warning)s):") % {"warning": warning},
             account_address(p, domain)]
    for lg in leagues:
        lines += [_("Your organiser address for league %(league)s (%(warning)s):")
                  % {"league": lg.id, "warning": warning}, organiser_address(lg, domain)]
    parts = [str(escape(x)) for x in lines]
    if links:
        parts.append(" · ".join(f'<a href="{escape(url)}">{escape(_(words))}</a>'
                                for words, url in links))
    html = "<br>".join(parts)
    lines += [f"{_(words)}: {url}" for words, url in links]
    return Footer(account_address(p, domain), "\n".join(lines),
                  f'<p style="color:#666;font-size:smaller">{html}</p>')


def footed(mail: Outbox, footer: Footer | None) -> Outbox:
    """The mail with the footer below its text and HTML, and its List-Unsubscribe mailto to
    the account address: an unsaved copy (the row as written stays as it was)."""
    if footer is None:
        return mail
    values = {k: getattr(mail, k) for k in _COLUMNS}
    values["headers"] = {**(mail.headers or {}), HEADER: footer.account}
    values["body_text"] = f"{mail.body_text.rstrip()}\n\n-- \n{footer.text}\n"
    html = mail.body_html
    if html:
        at = html.rfind("</body>")
        at = at if at >= 0 else html.lower().rfind("</body>")
        values["body_html"] = html[:at] + footer.html + html[at:] if at >= 0 else html + footer.html
    return Outbox(**values)
