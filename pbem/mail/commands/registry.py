"""Every mail command, and which address runs which (docs/design.md, Addresses). A seat's
own commands act on ctx.seat, which only a seat's address has: so no other address's list
holds one of them, nor the move (the fallback that takes any line no command names), and
any other line there is "not a command here". docs/mail.md lists them all
(tests/test_mail_command_docs.py)."""

from .auto import Auto
from .base import Command
from .calendar import Calendar
from .elsewhere import Elsewhere
from .export import Export
from .forget import Forget
from .games import Games
from .help import Help
from .hint import Hint
from .join import Join
from .leagues import Leagues
from .leave import Leave
from .mail import Mail
from .message import Message
from .more import More
from .move import Move
from .moves import Moves
from .name import Name
from .note import Note
from .notify import Notify
from .orders import Orders
from .pausing import PAUSE, RESUME
from .remind import Remind
from .resign import Resign
from .robot import Robot
from .rule import Rule
from .say import Say
from .seeks import Accept, Seek, Seeks, Unseek
from .settings import CAP, LANG, MERGE, QUIET, REST, ZONE
from .status import Status
from .turns import Turns
from .undo import Undo
from .vacation import Vacation

HELP, GAMES = Help(), Games()
# A seat's: `say` before `orders`, which claims its line too ("say play the ace" is talk)
SEAT_COMMANDS: list[Command] = [Status(), HELP, GAMES, Say(), Note(), Hint(), Undo(),
                                Resign(), Orders(), Move()]
ACCOUNT_COMMANDS: list[Command] = [HELP, GAMES, Name(), Vacation(), Notify(), Auto(), Mail(),
                                   ZONE, REST, QUIET, CAP, MERGE, LANG, Calendar(), Export(),
                                   Forget()]
LEAGUE_COMMANDS: list[Command] = [Join(), Leave(), Leagues(), Moves(), Turns()]
# open seeks (pbem.organise.seeks): `accept`, since `join` is a league's entry
SEEK_COMMANDS: list[Command] = [Seek(), Seeks(), Accept(), Unseek()]
ORGANISER_COMMANDS: list[Command] = [Rule(), More(), Robot(), Remind(), Message(), PAUSE,
                                     RESUME]
EVERY = list({id(c): c for c in SEAT_COMMANDS + ACCOUNT_COMMANDS + LEAGUE_COMMANDS
              + SEEK_COMMANDS + ORGANISER_COMMANDS}.values())
NAMES = {c.name for c in EVERY if c.name}  # a subject that starts with one is a command

# The account address (pbem+KEY@): its commands; an organiser's is refused with a pointer
ACCOUNT_HERE = ACCOUNT_COMMANDS + LEAGUE_COMMANDS + SEEK_COMMANDS + [
    Elsewhere(c.name) for c in ORGANISER_COMMANDS]
# A seat's address (play+TOKEN@): its own named commands, the account's, then the move
_SEAT_NAMES = {c.name for c in SEAT_COMMANDS}
AT_SEAT = [c for c in SEAT_COMMANDS if c.name] + [
    c for c in ACCOUNT_HERE if c.name not in _SEAT_NAMES] + [
    c for c in SEAT_COMMANDS if not c.name]
# A league's organiser address (organiser+KEY@)
AT_ORGANISER = [HELP, *ORGANISER_COMMANDS]
# Plain pbem@, from anyone: only what a stranger may ask (a mailed link confirms it)
STRANGERS = [c for c in ACCOUNT_HERE if c.strangers]

ACCOUNT_NAMES = {c.name for c in ACCOUNT_COMMANDS + LEAGUE_COMMANDS + SEEK_COMMANDS}
# what commits line by line with no key of its own: done once a line (pbem.mail.once)
ONCE = ACCOUNT_NAMES | {c.name for c in ORGANISER_COMMANDS}
