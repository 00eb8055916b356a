"""Many rows of one table in one INSERT, from dicts: in a hot write (a move, a timeout)
building and flushing ORM objects cost more than the SQL."""

from pydantic_core import PydanticUndefined
from sqlalchemy import insert


def insert_all(s, model, rows: list[dict]) -> None:
    """`rows` (each a dict of `model`'s fields) inserted in `s`'s transaction; a field a row
    leaves out gets the model's default, as an ORM object would."""
    if rows:
        s.connection().execute(insert(model.__table__), [_filled(model, r) for r in rows])


def _filled(model, row: dict) -> dict:
    out = dict(row)
    for name, field in model.model_fields.items():
        if name in out or name == "id":
            continue
        if field.default_factory is not None:
            out[name] = field.default_factory()
        elif field.default is not PydanticUndefined:
            out[name] = field.default
    return out
