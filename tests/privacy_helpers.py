"""A whole dump of the database as text, to search for a forgotten player's traces."""

import json

from sqlmodel import SQLModel


def dump(store) -> dict[str, list[str]]:
    """Every row of every table as text, whole (a Row's repr cuts long values short)."""
    def text(value) -> str:
        return json.dumps(value, ensure_ascii=False) if isinstance(value, dict | list) \
            else str(value)

    with store.reader() as s:
        return {t.name: [" | ".join(map(text, row)) for row in
                         s.connection().execute(t.select()).all()]
                for t in SQLModel.metadata.sorted_tables}
