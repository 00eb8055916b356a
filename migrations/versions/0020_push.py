"""push: browsers' push subscriptions and the pushes owed to them (issue 35)

Revision ID: 0020
Revises: 0019
Create Date: 2026-11-29 00:50:00.000000
"""
from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision: str = '0020'
down_revision: str | None = '0019'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        'push_subscription',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('player_id', sa.Integer(), nullable=False),
        sa.Column('endpoint', sqlmodel.sql.sqltypes.AutoString(length=600), nullable=False),
        sa.Column('p256dh', sqlmodel.sql.sqltypes.AutoString(length=100), nullable=False),
        sa.Column('auth', sqlmodel.sql.sqltypes.AutoString(length=40), nullable=False),
        sa.Column('created', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.Column('last_error', sqlmodel.sql.sqltypes.AutoString(length=200), nullable=True),
        sa.ForeignKeyConstraint(['player_id'], ['player.id'],
                                name=op.f('fk_push_subscription_player_id_player')),
        sa.PrimaryKeyConstraint('id', name=op.f('pk_push_subscription')),
        sa.UniqueConstraint('endpoint', name=op.f('uq_push_subscription_endpoint')),
    )
    with op.batch_alter_table('push_subscription', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_push_subscription_player_id'), ['player_id'],
                              unique=False)
    op.create_table(
        'push_message',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('subscription_id', sa.Integer(), nullable=False),
        sa.Column('mail', sqlmodel.sql.sqltypes.AutoString(length=200), nullable=False),
        sa.Column('turns', sa.JSON(), nullable=False),
        sa.Column('attempts', sa.Integer(), nullable=False),
        sa.Column('next_attempt', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.Column('sent_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True),
        sa.Column('last_error', sqlmodel.sql.sqltypes.AutoString(length=200), nullable=True),
        sa.Column('created', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.ForeignKeyConstraint(['subscription_id'], ['push_subscription.id'],
                                name=op.f('fk_push_message_subscription_id_push_subscription')),
        sa.PrimaryKeyConstraint('id', name=op.f('pk_push_message')),
        sa.UniqueConstraint('subscription_id', 'mail',
                            name=op.f('uq_push_message_subscription_id')),
    )
    with op.batch_alter_table('push_message', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_push_message_subscription_id'),
                              ['subscription_id'], unique=False)
        batch_op.create_index(batch_op.f('ix_push_message_next_attempt'), ['next_attempt'],
                              unique=False)
        batch_op.create_index(batch_op.f('ix_push_message_sent_at'), ['sent_at'], unique=False)


def downgrade() -> None:
    with op.batch_alter_table('push_message', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_push_message_sent_at'))
        batch_op.drop_index(batch_op.f('ix_push_message_next_attempt'))
        batch_op.drop_index(batch_op.f('ix_push_message_subscription_id'))
    op.drop_table('push_message')
    with op.batch_alter_table('push_subscription', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_push_subscription_player_id'))
    op.drop_table('push_subscription')
