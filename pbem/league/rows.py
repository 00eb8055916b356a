"""What the league's modules need of any table row."""

from typing import Protocol


class Saved(Protocol):
    @property
    def id(self) -> int | None: ...


def id_of(row: Saved) -> int:
    """A saved row's id: SQLModel types every id `int | None`, None only before its INSERT."""
    if row.id is None:
        raise ValueError(f"{row!r} is not saved yet")
    return row.id
