"""Mails for what is said at the table (pbem.engine.acts): talk, resignation offers and
taken-back moves. Talk is public, so every other human at the table hears it: at once
unless the player chose `notify digest`, which tells it in the daily digest. An offer
to resign asks the partner for a decision, so every other human hears of it at once."""

from collections.abc import Callable

from .config import Settings
from .engine import State
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
        subject, text, always = what
        for x in humans:
            player = t.player(x)
            if x.seat == ev["seat"]:
                continue
            if not always and prefs.notify(player) == "digest":
                continue  # the daily digest tells them
            body = f"{text}\n\nTo answer, reply with: say and your words.\n" \
                   f"Your table: {cfg.base_url}/t/{x.token}\n"
            out.append(mail_row(cfg, x, player, f"{ev['type']}:{gid}:{ev['seq']}:{x.seat}",
                                subject, body))
    return out


def _news(game_id: int, st: State, ev: dict, names: list[str]) -> tuple[str, str, bool] | None:
    """(subject, text, sent whatever the notify setting) for one event, or None."""
    kind, who = ev["type"], names[ev["seat"]] if isinstance(ev.get("seat"), int) else ""
    if kind == "say":
        return (f"Game {game_id}: {who} says", f"{who} says: {ev['text']}", False)
    if kind == "concede" and ev.get("off"):
        return (f"Game {game_id}: {who} plays on",
                f"{who} takes back the offer to resign game {game_id}.", True)
    if kind == "concede":
        mates = [names[s] for s in st.sides[st.side_of[ev["seat"]]] if s != ev["seat"]]
        return (f"Game {game_id}: {who} offers to resign",
                f"{who} offers to resign game {game_id}. If {' and '.join(mates)} also write "
                "resign, their side gives the game up; the offer lapses at the end of the "
                "hand.", True)
    if kind == "undo":
        return (f"Game {game_id}: {who} took back a move",
                f"{who} took back move {ev['undo']} of game {game_id}: it is {who}'s turn "
                "again, and links mailed for the moves after it no longer work.", False)
    return None


def since_last_move(st: State, seat: int) -> list[dict]:
    """The talk a seat has not answered by a move yet: for its turn mail."""
    return [t for t in st.talk if t["seq"] > st.last_moved[seat]]
