"""seat clock: each seat's bank in a game with a bank clock

Revision ID: 0007
Revises: 0006
Create Date: 2026-11-23 20:45:00.000000
"""
from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel  # noqa: F401  (autogenerate writes sqlmodel types: alembic #1647)
from alembic import op

revision: str = '0007'
down_revision: str | None = '0006'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table('seat_clock',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('game_id', sa.Integer(), nullable=False),
    sa.Column('seat', sa.Integer(), nullable=False),
    sa.Column('bank_seconds', sa.Integer(), nullable=False),
    sa.Column('since', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True),
    sa.Column('seq', sa.Integer(), nullable=False),
    sa.ForeignKeyConstraint(['game_id'], ['game.id'], name=op.f('fk_seat_clock_game_id_game')),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_seat_clock')),
    sa.UniqueConstraint('game_id', 'seat', name=op.f('uq_seat_clock_game_id'))
    )
    with op.batch_alter_table('seat_clock', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_seat_clock_game_id'), ['game_id'], unique=False)


def downgrade() -> None:
    with op.batch_alter_table('seat_clock', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_seat_clock_game_id'))
    op.drop_table('seat_clock')
