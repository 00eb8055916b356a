"""seeks: open seeks and their seats (issue 34): a game with anyone in a rating range

Revision ID: 0017
Revises: 0016
Create Date: 2026-11-28 21:50:21.009350
"""
from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision: str = '0017'
down_revision: str | None = '0016'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        'seek',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('player_id', sa.Integer(), nullable=False),
        sa.Column('rules', sa.JSON(), nullable=False),
        sa.Column('time_control', sa.JSON(), nullable=False),
        sa.Column('rating_min', sa.Integer(), nullable=True),
        sa.Column('rating_max', sa.Integer(), nullable=True),
        sa.Column('robots', sa.Boolean(), nullable=False),
        sa.Column('status', sqlmodel.sql.sqltypes.AutoString(length=10), nullable=False),
        sa.Column('due', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.Column('game_id', sa.Integer(), nullable=True),
        sa.Column('created', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.ForeignKeyConstraint(['game_id'], ['game.id'], name=op.f('fk_seek_game_id_game')),
        sa.ForeignKeyConstraint(['player_id'], ['player.id'],
                                name=op.f('fk_seek_player_id_player')),
        sa.PrimaryKeyConstraint('id', name=op.f('pk_seek')),
        sa.UniqueConstraint('game_id', name=op.f('uq_seek_game_id')),
    )
    with op.batch_alter_table('seek', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_seek_player_id'), ['player_id'], unique=False)
        batch_op.create_index('ix_seek_status_due', ['status', 'due'], unique=False)
    op.create_table(
        'seek_seat',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('seek_id', sa.Integer(), nullable=False),
        sa.Column('player_id', sa.Integer(), nullable=False),
        sa.Column('joined', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.ForeignKeyConstraint(['player_id'], ['player.id'],
                                name=op.f('fk_seek_seat_player_id_player')),
        sa.ForeignKeyConstraint(['seek_id'], ['seek.id'], name=op.f('fk_seek_seat_seek_id_seek')),
        sa.PrimaryKeyConstraint('id', name=op.f('pk_seek_seat')),
        sa.UniqueConstraint('seek_id', 'player_id', name=op.f('uq_seek_seat_seek_id')),
    )
    with op.batch_alter_table('seek_seat', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_seek_seat_player_id'), ['player_id'], unique=False)
        batch_op.create_index(batch_op.f('ix_seek_seat_seek_id'), ['seek_id'], unique=False)


def downgrade() -> None:
    with op.batch_alter_table('seek_seat', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_seek_seat_seek_id'))
        batch_op.drop_index(batch_op.f('ix_seek_seat_player_id'))
    op.drop_table('seek_seat')
    with op.batch_alter_table('seek', schema=None) as batch_op:
        batch_op.drop_index('ix_seek_status_due')
        batch_op.drop_index(batch_op.f('ix_seek_player_id'))
    op.drop_table('seek')
