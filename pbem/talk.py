"""Mails for what is said at the table (pbem.engine.acts): talk, resignation offers and
taken-back moves. Talk is public, so every other human at the table hears it: at once
unless the player chose `notify digest`, which tells it in the daily digest. An offer
to resign asks the partner for a decision, so every other human hears of it at once."""

from collections.abc import Callable

from .config import Settings
from .engine import State
from .i18n import _, language
from .store import prefs
from .store.models import Seat
from .table import Table

MailRow = Callable[..., dict]  # pbem.notify.mail_row (a layer above would be a circle)


def mails(cfg: Settings, t: Table, humans: list[Seat], mail_row: MailRow) -> list[dict]:
    """Outbox rows for the talk, offers and undos among the move's events to `humans`: the
    seats we may mail (mail_row, `cfg`, `humans`: notify's, made once for all of a move's
    mails)."""
    gid, out = t.game_id, []
    for ev in t.events:
        what = _news(gid, t.st, ev, t.names)
        if what is None:
            continue
        for x in humans:
            player = t.player(x)
            if x.seat == ev["seat"]:
                continue
            with language(prefs.language(player)):
                subject, text, always = what()
                if not always and prefs.notify(player) == "digest":
                    continue  # the daily digest tells them
                body = text + "\n\n" + _("To answer, reply with: say and your words.") + \
                    "\n" + _("Your table: %(url)s") % {"url": f"{cfg.base_url}/t/{x.token}"} + "\n"
                out.append(mail_row(cfg, x, player,
                                    f"{ev['type']}:{gid}:{ev['seq']}:{x.seat}", subject, body))
    return out


def _news(game_id: int, st: State, ev: dict, names: list[str]
          ) -> Callable[[], tuple[str, str, bool]] | None:
    """What to tell of one event, or None: a function giving (subject, text, sent whatever
    the notify setting) in the language of the context it is called in."""
    kind, who = ev["type"], names[ev["seat"]] if isinstance(ev.get("seat"), int) else ""
    values = {"game": game_id, "name": who, "text": ev.get("text"), "move": ev.get("undo"),
              "mates": " & ".join(names[s] for s in st.sides[st.side_of[ev["seat"]]]
                                  if s != ev["seat"]) if kind == "concede" else ""}
    if kind == "say":
        return lambda: (_("Game %(game)s: %(name)s says") % values,
                        _("%(name)s says: %(text)s") % values, False)
    if kind == "concede" and ev.get("off"):
        return lambda: (_("Game %(game)s: %(name)s plays on") % values,
                        _("%(name)s takes back the offer to resign game %(game)s.") % values,
                        True)
    if kind == "concede":
        return lambda: (_("Game %(game)s: %(name)s offers to resign") % values,
                        _("%(name)s offers to resign game %(game)s. If %(mates)s also write "
                          "resign, their side gives the game up; the offer lapses at the end "
                          "of the hand.") % values, True)
    if kind == "undo":
        return lambda: (_("Game %(game)s: %(name)s took back a move") % values,
                        _("%(name)s took back move %(move)s of game %(game)s: it is "
                          "%(name)s's turn again, and links mailed for the moves after it no "
                          "longer work.") % values, False)
    return None


def since_last_move(st: State, seat: int) -> list[dict]:
    """The talk a seat has not answered by a move yet: for its turn mail."""
    return [t for t in st.talk if t["seq"] > st.last_moved[seat]]
