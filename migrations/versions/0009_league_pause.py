"""league pause: a paused season, its paused games, and each paused deadline's pause

Revision ID: 0009
Revises: 0008
Create Date: 2026-11-23 23:50:00.000000
"""
from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel  # noqa: F401  (autogenerate writes sqlmodel types: alembic #1647)
from alembic import op

revision: str = '0009'
down_revision: str | None = '0008'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

TABLES = ('season', 'game', 'deadline')


def upgrade() -> None:
    for table in TABLES:
        with op.batch_alter_table(table, schema=None) as batch_op:
            batch_op.add_column(sa.Column('paused_at', sqlmodel.sql.sqltypes.UTCDateTime(),
                                          nullable=True))


def downgrade() -> None:
    for table in TABLES:
        with op.batch_alter_table(table, schema=None) as batch_op:
            batch_op.drop_column('paused_at')
