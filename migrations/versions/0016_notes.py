"""notes: a player's private notes on a game (issue 34), seen only by their author

Revision ID: 0016
Revises: 0015
Create Date: 2026-11-28 19:00:00.000000
"""
from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision: str = '0016'
down_revision: str | None = '0015'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        'note',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('game_id', sa.Integer(), nullable=False),
        sa.Column('player_id', sa.Integer(), nullable=False),
        sa.Column('text', sqlmodel.sql.sqltypes.AutoString(length=500), nullable=False),
        sa.Column('ref', sqlmodel.sql.sqltypes.AutoString(length=300), nullable=True),
        sa.Column('created', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.ForeignKeyConstraint(['game_id'], ['game.id'], name=op.f('fk_note_game_id_game')),
        sa.ForeignKeyConstraint(['player_id'], ['player.id'],
                                name=op.f('fk_note_player_id_player')),
        sa.PrimaryKeyConstraint('id', name=op.f('pk_note')),
        sa.UniqueConstraint('ref', name=op.f('uq_note_ref')),
    )
    with op.batch_alter_table('note', schema=None) as batch_op:
        batch_op.create_index('ix_note_game_player', ['game_id', 'player_id'], unique=False)
        batch_op.create_index(batch_op.f('ix_note_player_id'), ['player_id'], unique=False)


def downgrade() -> None:
    with op.batch_alter_table('note', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_note_player_id'))
        batch_op.drop_index('ix_note_game_player')
    op.drop_table('note')
