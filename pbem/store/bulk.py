"""The three calls pbem.play and pbem.prepared still make, on SQLAlchemy's public Core
execution in the session's transaction; they go once those call it themselves (issue 30)."""

from collections.abc import Sequence
from typing import Any

from sqlalchemy import Row, UpdateBase, insert
from sqlalchemy.sql import Select
from sqlmodel import Session, SQLModel


def insert_all(s: Session, model: type[SQLModel], rows: list[dict[str, Any]]) -> None:
    """`rows` (each a dict of `model`'s fields) inserted in `s`'s transaction; a field a row
    leaves out gets its column's default. One Core executemany for each set of fields:
    Core takes the first row's for all (a Core INSERT costs a third of the ORM's bulk one,
    bench/mail.py)."""
    by_fields: dict[frozenset[str], list[dict[str, Any]]] = {}
    for row in rows:
        by_fields.setdefault(frozenset(row), []).append(row)
    for same in by_fields.values():
        s.connection().execute(insert(model), same)


def run(s: Session, statement: UpdateBase, params: dict[str, Any] | list[dict[str, Any]]
        ) -> None:
    """`statement` run in `s`'s transaction (a list of params: an executemany)."""
    s.connection().execute(statement, params)


def rows(s: Session, statement: Select[*tuple[Any, ...]], params: dict[str, Any]
         ) -> Sequence[Row[*tuple[Any, ...]]]:
    """The rows of a SELECT run in `s`'s transaction, as SQLAlchemy gives them."""
    return s.connection().execute(statement, params).all()
