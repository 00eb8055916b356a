"""The runner: a mail's lines (the reader already cut off the quoted reply and the
signature) done one by one in order, stopping at the first that fails; and the answer's
summary of what was done, with the `help` list of the commands the address runs."""

from collections.abc import Sequence

from ... import orders
from ...engine import parse_action
from ...i18n import _
from . import aliases
from .base import Command, Context
from .errors import CommandError, NotACommand

Failed = tuple[str, str]  # (the line, why it was not done)


def run(ctx: Context, lines: list[str], commands: Sequence[Command]) -> Failed | None:
    """Do each line in order; stop at the first that fails and return (line, reason)."""
    here = Dispatch(commands)
    todo = unwrap_talk(lines, here.named)
    for i, line in enumerate(todo):
        ctx.last = i == len(todo) - 1
        try:
            command, args = here.pick(line)
            ctx.done.append(command.process(ctx, args))
        except CommandError as e:
            return line, str(e)
    return None


class Dispatch:
    """An address's commands, by what takes a line."""

    def __init__(self, commands: Sequence[Command]):
        self.commands = commands
        self.named = {c.name: c for c in commands if c.name}
        self.fallback = next((c for c in commands if not c.name), None)

    def pick(self, line: str) -> tuple[Command, str]:
        """The command that claims the line whole (given all of it), or whose name is its
        first word (given the rest), or else the fallback, the move, where there is one.
        A name may be written in the players' other languages (pbem.mail.commands.aliases)."""
        line = aliases.english(line)
        word, _space, rest = line.partition(" ")
        whole = next((c for c in self.commands if c.claims(line)), None)
        if whole is not None:
            return whole, line
        named = self.named.get(word.lower().rstrip(":"))
        if named is not None:
            return named, rest.strip()
        if self.fallback is not None:
            return self.fallback, line
        raise NotACommand(word)


def unwrap_talk(lines: list[str], named: dict[str, Command]) -> list[str]:
    """A mail client wraps a long `say` line at 72 or 78 characters: a line after it that
    is no command (named, claimed, nor a move) is more of its words, not a bad command."""
    if "say" not in named:
        return lines
    out: list[str] = []
    for line in lines:
        if out and named["say"].claims(out[-1]) and not _a_command(line, named):
            out[-1] = f"{out[-1]} {line.strip()}"
        else:
            out.append(line)
    return out


def _a_command(line: str, named: dict[str, Command]) -> bool:
    """Is the line a command's name, an order well written, or a move?"""
    if aliases.name(line.partition(" ")[0]) in named:
        return True
    for read in (orders.read, parse_action):
        try:
            if read(" ".join(line.lower().split())) is not None:
                return True
        except ValueError:
            pass
    return False


def help_text(commands: Sequence[Command]) -> str:
    """The `help` answer's list: the commands the address runs, as the registry has them,
    each named once (most helps begin with their command's words: "undo: take back...")."""
    return "\n".join(f"  {_help_line(c)}" for c in commands if c.help)


def _help_line(c: Command) -> str:
    """A command's help, led by its name unless its words already are ("say and...")."""
    words = _(c.help)
    first = c.help.split(" ", 1)[0].rstrip(":").lower()
    return words if not c.name or first == c.name else f"{c.name}: {words}"


def failure(error: Failed | None, lines: list[str]) -> dict | None:
    """The line that was not done, why, and whether lines after it were left undone."""
    if not error:
        return None
    line, reason = error
    return {"line": line, "reason": reason, "after": lines.index(line) < len(lines) - 1}


def summary_text(ctx: Context, lines: list[str], commands: Sequence[Command]) -> str:
    """The command list, when the mail asked for help or held no command."""
    if not lines:
        return _("I found no command in your mail. You can write:") + "\n" + help_text(commands)
    if ctx.want_help:
        return (_("You can write (one a line, above or below the quoted text):") + "\n"
                + help_text(commands))
    return ""


def summary(ctx: Context, lines: list[str], error: Failed | None,
            commands: Sequence[Command]) -> str:
    """What a mail's commands did, line by line: the account's answer (and its link's)."""
    done = "".join(_("Done: %(line)s") % {"line": d} + "\n" for d in ctx.done)
    err = failure(error, lines)
    bad = (_("Not done: %(line)s") % {"line": err["line"]} + f"\n{err['reason']}\n") if err \
        else ""
    return done + bad + summary_text(ctx, lines, commands)
