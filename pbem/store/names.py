"""A player's display name (`Player.name`), as the player sets it (`name Ann Smith` by mail,
the account page): every table, mail and page shows it (pbem.table.seat_names). Until set
it is the address's local part. A name is a stranger's words shown to others: bounded,
no control or invisible characters, no address or web address (a name is no channel for
spam or for another's address), and none that passes for a robot's seat or the viewer."""

import re
import unicodedata

from sqlmodel import select

from ..i18n import _
from .models import Player
from .states import Store

MAX_NAME = 40  # characters: a seat's name sits beside the cards on a phone's line
_ADDRESS = re.compile(r"@|://|\bwww\.|\b[\w-]+\.(?:com|org|net|info|biz|io|ru|cn|xyz|top|de|"
                      r"uk|fr|me|co|app|link|site|online|ly)\b", re.IGNORECASE)
_TAKEN = re.compile(r"\brobot\b|^(?:you|pbem|server|admin)$")  # what the pages call others


def clean(text: str) -> str:
    """The name as shown: NFKC (full-width letters read as letters), without control or
    format characters (bidirectional overrides among them), spaces collapsed. ValueError,
    in the player's words, for a name we do not show."""
    text = unicodedata.normalize("NFKC", text[:4 * MAX_NAME])
    text = "".join(c if not unicodedata.category(c).startswith(("C", "Z")) else " "
                   for c in text)
    name = " ".join(text.split())
    if not name:
        raise ValueError(_("Write the name after the word: name Ann Smith"))
    if len(name) > MAX_NAME:
        raise ValueError(_("A name is at most %(n)s characters.") % {"n": MAX_NAME})
    if _ADDRESS.search(name):
        raise ValueError(_("A name may not hold a mail or web address."))
    if _TAKEN.search(name.casefold()) or not any(c.isalnum() for c in name):
        raise ValueError(_("That name would pass for someone else's: choose another."))
    return name


def set_name(store: Store, player_id: int, text: str) -> Player:
    """The player's name set (ValueError, and nothing changed, if `clean` refuses it)."""
    name = clean(text)
    with store.session() as s:
        player = s.exec(select(Player).where(Player.id == player_id).with_for_update()).one()
        player.name = name
        s.add(player)
        s.commit()
        s.refresh(player)
        return player
