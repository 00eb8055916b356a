"""a game's pending deadlines by an index of their own (bench/scale.py): `moves`, the home
page and the table read them by game and state, which SQLite answered from (state, due),
every pending row of the site

Revision ID: 0012
Revises: 0011
Create Date: 2026-11-24 03:20:00.000000
"""
from collections.abc import Sequence

from alembic import op

revision: str = '0012'
down_revision: str | None = '0011'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table('deadline', schema=None) as batch_op:
        batch_op.create_index('ix_deadline_game_state', ['game_id', 'state'], unique=False)


def downgrade() -> None:
    with op.batch_alter_table('deadline', schema=None) as batch_op:
        batch_op.drop_index('ix_deadline_game_state')
