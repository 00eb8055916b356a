"""Putting an anonymous handle in place of a player's address and name, in the rows of one
transaction.

- The address is distinctive (it holds its domain): it is replaced wherever it appears, in
  every text and JSON column of every table (the model may grow: a new column is covered
  without a change here). That covers the outbox's rows and headers, bounces kept in
  prefs, the web's mail counts, `substitute` events of the move log, invitations...
- A name may be a common word ("ann", "play"): it is replaced, as a whole word, only where
  free text is kept (FREE_TEXT below: the mails, talk, a ruling's reason),
  and in the player's own rows (pbem.privacy.forget), so that no other player's name and
  no key, token or event type is touched. Talk keeps the engine's rule of one clean line,
  so every log replays as before.
"""

import html
import json
import re
from collections.abc import Callable, Iterable
from typing import Any, NamedTuple

from sqlalchemy import (
    JSON,
    Column,
    String,
    Table,
    Text,
    TypeDecorator,
    cast,
    func,
    or_,
    select,
    update,
)
from sqlmodel import Session, SQLModel

from ..engine.acts import TALK_MAX, clean_talk

ANY = None  # every string of the column
TEXT_KEYS = ("text", "reason")  # in the move log: talk, a ruling's reason
# (table, column): free text that may name a player, and in JSON, under which keys (a
# mail's headers hold its attachment: another player's export names them)
FREE_TEXT: dict[tuple[str, str], tuple[str, ...] | None] = {
    ("outbox", "subject"): ANY, ("outbox", "body_text"): ANY, ("outbox", "body_html"): ANY,
    ("outbox", "last_error"): ANY, ("outbox", "headers"): ANY, ("move", "payload"): TEXT_KEYS}
OWN_ROWS = {"player", "entry"}  # changed only in the player's own rows (forget.py)


class Who(NamedTuple):
    email: str
    name: str


def scrub(s: Session, old: Who, new: Who) -> int:
    """Replace `old` by `new` in every table but OWN_ROWS; the number of cells changed."""
    swap = Swap(old, new)
    changed = 0
    for table in SQLModel.metadata.sorted_tables:
        if table.name in OWN_ROWS:
            continue
        for column in table.columns:
            if _texty(column) and not column.primary_key:
                free = (table.name, column.name) in FREE_TEXT
                keys = FREE_TEXT.get((table.name, column.name))
                changed += _column(s, table, column.name, swap, Where(free, keys))
    return changed


def _texty(column: Column) -> bool:
    """A column of text or JSON (SQLModel's AutoString is a TypeDecorator of String)."""
    kind = column.type.impl if isinstance(column.type, TypeDecorator) else column.type
    return isinstance(kind, (String, JSON))


class Swap:
    """The replacements: the address anywhere (as stored, in HTML); the name as a word."""

    def __init__(self, old: Who, new: Who):
        self.needles = sorted({v.lower() for x in old if x for v in _forms(x)}, key=len)
        self.address = [(re.compile(re.escape(f), re.I), g)
                        for f, g in zip(_forms(old.email), _forms(new.email), strict=True)]
        word = [(re.compile(rf"(?<!\w){re.escape(f)}(?!\w)", re.I), g)
                for f, g in zip(_forms(old.name), _forms(new.name), strict=True)]
        self.name = word if old.name.strip() else []

    def text(self, value: str, free: bool) -> str:
        for pattern, to in self.address + (self.name if free else []):
            value = pattern.sub(to, value)
        return value

    def tree(self, value: Any, where: "Where", key: str = "") -> Any:
        """A JSON value with every string swapped (names only where `where` says)."""
        if isinstance(value, dict):
            return {k: self.tree(v, where, k) for k, v in value.items()}
        if isinstance(value, list):
            return [self.tree(v, where, key) for v in value]
        if isinstance(value, str):
            out = self.text(value, where.free and (where.keys is ANY or key in where.keys))
            talk = where.keys is not ANY and key == "text"  # the engine's rule for talk
            return clean_talk(out[:TALK_MAX]) if out != value and talk else out
        return value


class Where(NamedTuple):
    """Where in a column a name is replaced: nowhere (not free), or in every string (keys
    ANY) or only under `keys` of its JSON."""
    free: bool
    keys: tuple[str, ...] | None


def _forms(text: str) -> list[str]:
    """The text as a column may hold it: as it is, in HTML, and escaped as JSON text."""
    return [text, html.escape(text), json.dumps(text)[1:-1]]


def _column(s: Session, table: Table, name: str, swap: Swap, where: Where) -> int:
    column = table.c[name]
    key = next(iter(table.primary_key.columns))
    wanted = [func.lower(cast(column, Text)).contains(n, autoescape=True) for n in swap.needles]
    if not wanted:
        return 0
    rows = s.connection().execute(select(key, column).where(or_(*wanted))).all()
    is_json = not isinstance(column.type, TypeDecorator) and isinstance(column.type, JSON)
    change: Callable[[Any], Any] = (
        (lambda v: swap.tree(v, where)) if is_json else (lambda v: swap.text(v, where.free)))
    done = 0
    for row_id, value in _changed(rows, change):
        s.connection().execute(update(table).where(key == row_id).values({name: value}))
        done += 1
    return done


def _changed(rows: Iterable[Any], change: Callable[[Any], Any]) -> Iterable[tuple[Any, Any]]:
    for row_id, value in rows:
        if value is not None and (new := change(value)) != value:
            yield row_id, new
