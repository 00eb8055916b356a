"""docs/mail.md lists every mail command the registry holds (issue 30): its name, the
addresses that take it and an example, which that command takes at each of them; nothing
is documented that the registry lacks; and the `help` answer is built from the same lists."""

import re
from pathlib import Path

from pbem.mail.commands.base import Context
from pbem.mail.commands.elsewhere import Elsewhere
from pbem.mail.commands.registry import ACCOUNT_HERE, AT_ORGANISER, AT_SEAT, EVERY, STRANGERS
from pbem.mail.commands.runner import Dispatch, summary_text

DOC = (Path(__file__).resolve().parent.parent / "docs" / "mail.md").read_text()
AT = {"seat": AT_SEAT, "account": ACCOUNT_HERE, "organiser": AT_ORGANISER, "plain": STRANGERS}


def _documented() -> dict[str, tuple[str, str]]:
    """{command: (where, example)} from the table of "## Every command"."""
    section = DOC.split("\n## Every command\n", 1)[1].split("\n## ", 1)[0]
    rows = [[c.strip() for c in line.strip("|").split("|")]
            for line in section.splitlines() if line.startswith("| ")]
    return {name.strip("`"): (where, example.strip("`")) for name, where, example in rows[2:]}


def _title(command) -> str:
    return command.name or "a move"


def _where(command) -> str:
    return ", ".join(at for at, commands in AT.items() if any(c is command for c in commands))


def test_every_command_is_documented_and_every_documented_one_exists():
    registry = {_title(c): (_where(c), c.example) for c in EVERY}
    assert len(registry) == len(EVERY) > 25
    assert _documented() == registry


def test_each_example_is_taken_by_its_command_at_each_of_its_addresses():
    for c in EVERY:
        assert c.example and c.help, _title(c)
        for at in _where(c).split(", "):
            command, _args = Dispatch(AT[at]).pick(c.example)
            assert command is c, (at, c.example)


def test_the_address_table_names_each_address_commands():
    def row(address: str) -> set[str]:
        line = next(x for x in DOC.splitlines() if x.startswith(f"| `{address}`"))
        return set(re.findall(r"`([a-z]+)`", line.split("|")[2]))

    account = {c.name for c in ACCOUNT_HERE if not isinstance(c, Elsewhere)}
    assert row("pbem+KEY@DOMAIN") == account
    assert row("organiser+KEY@DOMAIN") == {c.name for c in AT_ORGANISER}


def test_the_help_answer_lists_the_commands_of_its_address():
    asked = Context(store=None, player=None, want_help=True)  # type: ignore[arg-type]
    for at, commands in AT.items():
        text = summary_text(asked, ["help"], commands)
        assert text.startswith("You can write")
        for c in (c for c in commands if not isinstance(c, Elsewhere)):
            [line] = [x for x in text.splitlines() if x.endswith(c.help)]
            # each command named once: never "undo: undo: take back..." (issue 32)
            assert c.name == "" or line.lower().split().count(f"{c.name}:") <= 1, line
            assert line.lstrip().lower().startswith(c.name), (at, line)
