"""Many rows of one table in one INSERT, from dicts: in a hot write (a move, a timeout)
building and flushing ORM objects cost more than the SQL. Nobody waits for its answer (BLIND:
on PostgreSQL it comes with the next statement's or the COMMIT's, in one round trip; an error,
a unique key taken, is raised there as the same IntegrityError)."""

from functools import cache

from pydantic_core import PydanticUndefined
from sqlalchemy import insert

from .db import BLIND


def insert_all(s, model, rows: list[dict]) -> None:
    """`rows` (each a dict of `model`'s fields) inserted in `s`'s transaction; a field a row
    leaves out gets the model's default, as an ORM object would."""
    if rows:
        statement, defaults = _plan(model)
        s.connection().execute(statement, [_filled(defaults, r) for r in rows])


@cache
def _plan(model) -> tuple:
    """The model's INSERT (built once: its SQL is compiled once, not looked up each time)
    and its fields' defaults, as (name, factory, value)."""
    defaults = [(name, field.default_factory, field.default)
                for name, field in model.model_fields.items() if name != "id"
                and (field.default_factory is not None or field.default is not PydanticUndefined)]
    # inline: no RETURNING of the new id (nobody reads it), which a blind statement cannot have
    return insert(model.__table__).inline().execution_options(**{BLIND: True}), defaults


def _filled(defaults, row: dict) -> dict:
    out = dict(row)
    for name, factory, value in defaults:
        if name not in out:
            out[name] = factory() if factory is not None else value
    return out
