"""calendar: a player's calendar feed (issue 35), its secret address kept as a hash

Revision ID: 0021
Revises: 0020
Create Date: 2026-11-29 00:45:00.000000
"""
from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision: str = '0021'
down_revision: str | None = '0020'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        'calendar_feed',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('player_id', sa.Integer(), nullable=False),
        sa.Column('token_hash', sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
        sa.Column('created', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.ForeignKeyConstraint(['player_id'], ['player.id'],
                                name=op.f('fk_calendar_feed_player_id_player')),
        sa.PrimaryKeyConstraint('id', name=op.f('pk_calendar_feed')),
        sa.UniqueConstraint('player_id', name=op.f('uq_calendar_feed_player_id')),
        sa.UniqueConstraint('token_hash', name=op.f('uq_calendar_feed_token_hash')),
    )


def downgrade() -> None:
    op.drop_table('calendar_feed')
