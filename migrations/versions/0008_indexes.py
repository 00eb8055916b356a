"""indexes for a site of many games (bench/scale.py --explain): a player's seats, games
by status, and deadlines by state and due time (the tick reads the pending ones, not
the history)

Revision ID: 0008
Revises: 0007
Create Date: 2026-11-23 23:50:00.000000
"""
from collections.abc import Sequence

from alembic import op

revision: str = '0008'
down_revision: str | None = '0007'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table('seat', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_seat_player_id'), ['player_id'], unique=False)
    with op.batch_alter_table('game', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_game_status'), ['status'], unique=False)
    with op.batch_alter_table('deadline', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_deadline_state'))
        batch_op.create_index('ix_deadline_state_due', ['state', 'due'], unique=False)


def downgrade() -> None:
    with op.batch_alter_table('deadline', schema=None) as batch_op:
        batch_op.drop_index('ix_deadline_state_due')
        batch_op.create_index(batch_op.f('ix_deadline_state'), ['state'], unique=False)
    with op.batch_alter_table('game', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_game_status'))
    with op.batch_alter_table('seat', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_seat_player_id'))
