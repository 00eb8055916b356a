"""reviews: each finished hand's review, hints taken by a seat, a league's hints allowed
(issue 33)

Revision ID: 0019
Revises: 0018
Create Date: 2026-11-29 01:10:00.000000
"""
from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision: str = '0019'
down_revision: str | None = '0018'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        'hand_review',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('game_id', sa.Integer(), nullable=False),
        sa.Column('hand', sa.Integer(), nullable=False),
        sa.Column('data', sa.JSON(), nullable=True),  # null: to be worked out
        sa.Column('created', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.ForeignKeyConstraint(['game_id'], ['game.id'],
                                name=op.f('fk_hand_review_game_id_game')),
        sa.PrimaryKeyConstraint('id', name=op.f('pk_hand_review')),
        sa.UniqueConstraint('game_id', 'hand', name=op.f('uq_hand_review_game_id')),
    )
    with op.batch_alter_table('seat', schema=None) as batch_op:
        batch_op.add_column(sa.Column('hints', sa.Integer(), nullable=False,
                                      server_default='0'))
    with op.batch_alter_table('league', schema=None) as batch_op:
        batch_op.add_column(sa.Column('hints', sa.Boolean(), nullable=False,
                                      server_default=sa.false()))


def downgrade() -> None:
    with op.batch_alter_table('league', schema=None) as batch_op:
        batch_op.drop_column('hints')
    with op.batch_alter_table('seat', schema=None) as batch_op:
        batch_op.drop_column('hints')
    op.drop_table('hand_review')
