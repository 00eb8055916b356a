"""A player's own data by mail: the export as an attachment to their own address, and the
link that confirms `forget me` (pbem.asks: its GET shows a button, only the POST forgets:
pbem.web.my_data). Both go only to the player's registered address, whoever asked."""

from sqlalchemy.exc import IntegrityError
from sqlmodel import select

from ..asks import ask
from ..config import Settings, load
from ..i18n import _, current, language
from ..store import prefs
from ..store.mime import attached
from ..store.models import Outbox, Player
from ..store.models import now as utcnow
from ..store.states import Store
from .export import as_json, player_data

FORGET = "pbem.forget"  # the signed link's purpose
FORGET_PATH = "/forget/"


def mail_export(store: Store, player: Player) -> bool:
    """Queue the player's export to their address, once a day at most; True if queued."""
    assert player.id is not None  # a stored player's
    data = as_json(player_data(store, player.id))
    with language(prefs.language(player)):
        text = _("Attached is everything we hold about you, as JSON: your settings, your league "
                 "entries, and each of your games as you may see it.") + "\n"
        subject, lang = _("Your data"), current()
    key = f"pbem.export:{player.id}:{utcnow().date().isoformat()}"
    try:
        with store.session() as s:
            if s.exec(select(Outbox.id).where(Outbox.dedupe_key == key)).first():
                return False
            s.add(Outbox(to_addr=player.email, subject=subject, body_text=text,
                         headers={"Auto-Submitted": "auto-replied", "Content-Language": lang,
                                  **attached(f"pbem-player-{player.id}.json", data)},
                         dedupe_key=key))
            s.commit()
    except IntegrityError:  # the same request twice at once: one of them queued it
        return False
    return True


def ask_to_forget(store: Store, player: Player, cfg: Settings | None = None) -> bool:
    """Mail the player the link that forgets them (once a day at most); True if mailed."""
    cfg = cfg or load()

    def text(link: str) -> str:
        return _("You asked us to forget you. Open this link and press its button to do it "
                 "(within 14 days): %(link)s\n\nThen we send you no more mail, your address "
                 "and name are replaced everywhere by an anonymous handle, and robots take "
                 "your seats in games still in play. It cannot be undone. If you did not ask, "
                 "ignore this mail: nothing happens without the button.") % {"link": link} + "\n"

    with language(prefs.language(player)):
        return ask(store, player.email, FORGET, {"p": player.id, "e": player.email},
                   FORGET_PATH, _("Forget you? Confirm"), text, cfg)
