"""An account or organiser command done at most once per mail line, whatever the tries.

Those commands commit each on its own (a vacation, a setting, an entry, an organiser's
message), and the mail's Inbound row is written only after the last of them, with the
answer. A mail that failed by a bug after some of its lines were done is kept in the shunt
and answered 451 (pbem.mail.shunt), so it comes again: each try did those lines again
(`vacation 2` took two more days of the bank at every try). Now each such line, once done,
leaves an Inbound row keyed by the mail's key and the line's number, as a seat's move
leaves its ref; a later try of the mail skips it and says it was done.
"""

from sqlalchemy.exc import IntegrityError
from sqlmodel import select

from ..store.models import Inbound
from ..store.states import Store
from .commands.base import Command, Context

READ_ONLY = {"help", "games", "leagues", "moves", "status"}  # harmless to do again


class Once(Command):
    """`command`, done at most once for each line of the mail keyed `key`."""

    def __init__(self, command: Command, key: str):
        self.command, self.key = command, key
        self.name, self.help, self.strangers = command.name, command.help, command.strangers

    def claims(self, line: str) -> bool:
        return self.command.claims(line)

    def process(self, ctx: Context, args: str) -> str:
        line_key = f"{self.key} #{len(ctx.done)}"
        if _done(ctx.store, line_key):
            return f"{self.name} {args}: done on an earlier try of this mail".lstrip()
        said = self.command.process(ctx, args)
        _mark(ctx.store, line_key)
        return said


def once(commands: list[Command], key: str, names: set[str]) -> list[Command]:
    """`commands`, those named in `names` (that change something) done once a line."""
    return [Once(c, key) if c.name in names - READ_ONLY else c for c in commands]


def _done(store: Store, line_key: str) -> bool:
    with store.reader() as s:
        return s.exec(select(Inbound.id).where(Inbound.message_id == line_key)).first() \
            is not None


def _mark(store: Store, line_key: str) -> None:
    try:
        with store.session() as s:
            s.add(Inbound(message_id=line_key, result="line done"))
            s.commit()
    except IntegrityError:  # the same mail, done twice at once: its twin marked it
        pass
