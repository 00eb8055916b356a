"""A player's private notes on a game (issue 34): `note TEXT` at a seat's address, or the
box on the table page. Only the author ever sees them: on their own table page and in their
own export; forgetting the player deletes them. They are not moves (nothing here touches
the move log, so no game log, export or replay holds them), and no other seat's page, the
organiser's, a public page, a mail to anyone else or the operator's log reads this table."""

from sqlmodel import Session, col, delete, func, select

from ..engine.acts import clean_talk
from ..i18n import _
from .models import Note, Player
from .states import Store

MAX_TEXT = 500  # characters of one note (the column holds no more)
MAX_NOTES = 50  # notes one player keeps on one game
_READ = 4 * MAX_TEXT  # of a longer text, the rest is not even read


class NoteRefused(ValueError):
    """The note was not kept: the message says why, for its author."""


def clean(text: str) -> str:
    """One line, as typed: controls (NUL too: PostgreSQL's text refuses it) out, runs of
    spaces as one; NoteRefused if nothing is left or too much."""
    words = clean_talk(text[:_READ + 1])
    if not words:
        raise NoteRefused(_("write the note after the word note"))
    if len(words) > MAX_TEXT:
        raise NoteRefused(_("a note is at most %(most)s characters (this was %(n)s)")
                          % {"most": MAX_TEXT, "n": len(words)})
    return words


def add(store: Store, game_id: int, player_id: int, text: str, ref: str | None = None) -> int:
    """Keep the note (cleaned); returns how many the player now keeps on the game. `ref`
    (a mail's line) makes it once: the same line again keeps nothing more. NoteRefused if
    the text is bad or the player keeps MAX_NOTES on the game already."""
    words = clean(text)
    with store.session() as s:
        # the author's row, locked: two notes at once are counted one after the other
        s.exec(select(Player.id).where(Player.id == player_id).with_for_update()).one()
        if ref is not None and s.exec(select(Note.id).where(Note.ref == ref)).first():
            return _count(s, game_id, player_id)
        kept = _count(s, game_id, player_id)
        if kept >= MAX_NOTES:
            raise NoteRefused(_("you keep %(most)s notes on this game already: delete one "
                                "on your table page first") % {"most": MAX_NOTES})
        s.add(Note(game_id=game_id, player_id=player_id, text=words, ref=ref))
        s.commit()
    return kept + 1


def remove(store: Store, note_id: int, player_id: int) -> bool:
    """Delete one of the player's own notes; False if they have no such note."""
    with store.session() as s:
        gone = s.exec(delete(Note).where(col(Note.id) == note_id,
                                         col(Note.player_id) == player_id))
        s.commit()
    return bool(gone.rowcount)


def on_game(store: Store, game_id: int, player_id: int) -> list[Note]:
    """The player's own notes on the game, oldest first."""
    with store.reader() as s:
        return list(s.exec(select(Note).where(Note.game_id == game_id,
                                              Note.player_id == player_id)
                           .order_by(col(Note.id))).all())


def of_player(s: Session, player_id: int) -> list[dict]:
    """Every note of the player, for their own export."""
    return [{"game": n.game_id, "text": n.text, "created": n.created.isoformat()}
            for n in s.exec(select(Note).where(Note.player_id == player_id)
                            .order_by(col(Note.id))).all()]


def forget(s: Session, player_id: int) -> None:
    """Every note of the player goes, in the caller's transaction."""
    s.exec(delete(Note).where(col(Note.player_id) == player_id))


def _count(s: Session, game_id: int, player_id: int) -> int:
    return s.exec(select(func.count()).select_from(Note).where(
        Note.game_id == game_id, Note.player_id == player_id)).one()
