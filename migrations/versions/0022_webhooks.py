"""webhooks: a league's webhooks and the queue of their posts (issue 35)

Revision ID: 0022
Revises: 0021
Create Date: 2026-11-29 00:45:00.000000
"""
from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision: str = '0022'
down_revision: str | None = '0021'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        'webhook',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('league_id', sa.Integer(), nullable=False),
        sa.Column('kind', sqlmodel.sql.sqltypes.AutoString(length=10), nullable=False),
        sa.Column('url', sqlmodel.sql.sqltypes.AutoString(length=500), nullable=False),
        sa.Column('hint', sqlmodel.sql.sqltypes.AutoString(length=120), nullable=False),
        sa.Column('created', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.Column('failed', sa.Integer(), nullable=False),
        sa.Column('last_error', sqlmodel.sql.sqltypes.AutoString(length=200), nullable=True),
        sa.Column('last_error_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True),
        sa.ForeignKeyConstraint(['league_id'], ['league.id'],
                                name=op.f('fk_webhook_league_id_league')),
        sa.PrimaryKeyConstraint('id', name=op.f('pk_webhook')),
    )
    with op.batch_alter_table('webhook', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_webhook_league_id'), ['league_id'], unique=False)
    op.create_table(
        'webhook_post',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('webhook_id', sa.Integer(), nullable=False),
        sa.Column('key', sqlmodel.sql.sqltypes.AutoString(length=200), nullable=False),
        sa.Column('news', sa.JSON(), nullable=False),
        sa.Column('state', sqlmodel.sql.sqltypes.AutoString(length=10), nullable=False),
        sa.Column('attempts', sa.Integer(), nullable=False),
        sa.Column('next_attempt', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.Column('sent_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True),
        sa.Column('last_error', sqlmodel.sql.sqltypes.AutoString(length=200), nullable=True),
        sa.Column('created', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.ForeignKeyConstraint(['webhook_id'], ['webhook.id'],
                                name=op.f('fk_webhook_post_webhook_id_webhook')),
        sa.PrimaryKeyConstraint('id', name=op.f('pk_webhook_post')),
        sa.UniqueConstraint('key', name=op.f('uq_webhook_post_key')),
    )
    with op.batch_alter_table('webhook_post', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_webhook_post_webhook_id'), ['webhook_id'],
                              unique=False)
        batch_op.create_index('ix_webhook_post_state_next', ['state', 'next_attempt'],
                              unique=False)


def downgrade() -> None:
    with op.batch_alter_table('webhook_post', schema=None) as batch_op:
        batch_op.drop_index('ix_webhook_post_state_next')
        batch_op.drop_index(batch_op.f('ix_webhook_post_webhook_id'))
    op.drop_table('webhook_post')
    with op.batch_alter_table('webhook', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_webhook_league_id'))
    op.drop_table('webhook')
