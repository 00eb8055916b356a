"""Plain `pbem@DOMAIN` acts on nothing (issue 29): anyone can write any From. A mail there
from a known player's address is answered at that address only, at most once an hour,
with the player's own account address and a one-use link that does what the mail asked
(pbem.web.account_link: the GET shows the commands, only the POST does them, once). A
forger learns nothing (the answer goes to the real owner) and changes nothing; the owner
loses one click."""

from datetime import timedelta

from sqlmodel import col, select

from ..asks import MAX_LINK
from ..i18n import _, current, language
from ..signing import COMMANDS, Signer, secret_keys
from ..store import prefs
from ..store.accounts import WARNING, account_address, organiser_address
from ..store.models import League, Outbox, Player
from ..store.models import now as utcnow

LINK_HOURS = 24  # how long the link works
HOUR = timedelta(hours=1)


def _key(player_id: int, at) -> str:
    return f"plain:{player_id}:{at:%Y-%m-%dT%H}"


def answered_lately(s, player_id: int, now) -> bool:
    """Was the player answered at plain pbem@ in the last hour? (The answer's dedupe key
    holds its hour: two at once, one wins.)"""
    keys = [_key(player_id, now), _key(player_id, now - HOUR)]
    return s.exec(select(Outbox.id).where(col(Outbox.dedupe_key).in_(keys),
                                          Outbox.created > now - HOUR)).first() is not None


def plain_answer(store, cfg, player: Player, lines: list[str], subject: str) -> dict | None:
    """The answer's Outbox row, or None if the player was answered within the hour."""
    now, player_id = utcnow(), player.id
    assert player_id is not None  # a stored player's
    with store.reader() as s:
        if answered_lately(s, player_id, now):
            return None
        leagues = s.exec(select(League).where(League.organiser_id == player_id)
                         .order_by(col(League.id))).all()
    with language(prefs.language(player)):
        text = _text(cfg, player, lines, leagues)
        subject, lang = _("Your mail to us did nothing: your account address"), current()
    return {"to_addr": player.email, "subject": subject,
            "body_text": text, "dedupe_key": _key(player_id, now),
            "headers": {"Reply-To": account_address(player, cfg.mail_domain),
                        "Auto-Submitted": "auto-replied", "Content-Language": lang}}


def _text(cfg, player, lines, leagues) -> str:
    values = {"plain": f"pbem@{cfg.mail_domain}", "warning": _(WARNING),
              "mine": account_address(player, cfg.mail_domain), "hours": LINK_HOURS}
    out = [_("Your mail to %(plain)s did nothing: anyone can write a mail with your address "
             "as its sender, so we act only on mail to your own account address, %(mine)s "
             "(%(warning)s). Reply to this mail, or write to that address, from your own "
             "address.") % values]
    if lines:
        out += ["", _("Your mail asked:"), *[f"  {x}" for x in lines], ""]
        link = _link(cfg, player, lines)
        out.append(_("To do it now, open this link and press the button (within %(hours)s "
                     "hours, once): %(link)s") % dict(values, link=link) if link else
                   _("That is more than a link can carry: write it to your account address."))
    for lg in leagues:
        out += ["", _("Organiser commands for league %(league)s are taken only at its "
                      "organiser address, %(address)s (%(warning)s).") % dict(
            values, league=lg.id, address=organiser_address(lg, cfg.mail_domain))]
    out += ["", _("If you did not write to us, ignore this mail: nothing was done.")]
    return "\n".join(out) + "\n"


def _link(cfg, player, lines) -> str | None:
    token = Signer(secret_keys(cfg), COMMANDS).dumps(
        {"p": player.id, "e": player.email, "l": lines})
    return f"{cfg.base_url}/a/{token}" if len(token) <= MAX_LINK else None


def read_link(token: str, cfg) -> dict:
    """The link's data ({"p", "e", "l", "n"}); ValueError saying why it does not work."""
    return Signer(secret_keys(cfg), COMMANDS).loads(token, max_age=LINK_HOURS * 3600)
