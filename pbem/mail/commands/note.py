"""note: a private note on the seat's game, that only its author ever sees (their table
page, their own export): not a move, not in the game's log (pbem.store.notes)."""

from ...i18n import N_, _
from ...store import notes
from .base import Command, Context
from .errors import Declined


class Note(Command):
    name = "note"
    help = N_("note and your words: a private note on this game that only you ever see")
    example = "note East holds the last high club"

    def claims(self, line: str) -> bool:  # before orders: "note play the ace" is a note
        return line.split(" ", 1)[0].lower().rstrip(":") == "note"

    def process(self, ctx: Context, args: str) -> str:
        args = args.split(" ", 1)[1] if " " in args else ""  # the whole line (claimed)
        seat = ctx.my_seat
        ref = f"{ctx.message_id}#note.{seat.game_id}.{seat.seat}.{len(ctx.done)}"[:300]
        try:
            kept = notes.add(ctx.store, seat.game_id, ctx.my_id, args, ref)
        except notes.NoteRefused as e:
            raise Declined(str(e)) from None
        # the words are not repeated: the answer says only that the note is kept
        return _("note: kept, %(n)s of at most %(most)s on this game; only you see them, "
                 "on your table page") % {"n": kept, "most": notes.MAX_NOTES}
