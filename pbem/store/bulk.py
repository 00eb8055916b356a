"""The three calls pbem.play and pbem.prepared still make, on the session's own public
execution; they go once those call `s.exec` themselves (issue 30)."""

from collections.abc import Sequence
from typing import Any

from sqlalchemy import Row, UpdateBase, insert
from sqlalchemy.sql import Select
from sqlmodel import Session, SQLModel

# an UPDATE or DELETE run here leaves the session's loaded objects as they are (the callers
# set what they hold themselves), as a Core statement would
_AS_CORE = {"synchronize_session": False}


def insert_all(s: Session, model: type[SQLModel], rows: list[dict[str, Any]]) -> None:
    """`rows` (each a dict of `model`'s fields) inserted in `s`'s transaction by one ORM
    bulk INSERT; a field a row leaves out gets its column's default."""
    if rows:
        s.exec(insert(model), params=rows)


def run(s: Session, statement: UpdateBase, params: dict[str, Any] | list[dict[str, Any]]
        ) -> None:
    """`statement` run in `s`'s transaction (a list of params: an executemany)."""
    s.exec(statement, params=params, execution_options=_AS_CORE)


def rows(s: Session, statement: Select[*tuple[Any, ...]], params: dict[str, Any]
         ) -> Sequence[Row[*tuple[Any, ...]]]:
    """The rows of a SELECT run in `s`'s transaction, as SQLAlchemy gives them."""
    return s.connection().execute(statement, params).all()
