"""season schedule: the version of a round robin's schedule each season keeps for its life
(the seasons before it keep 1, the single greedy run; new seasons take 2)

Revision ID: 0011
Revises: 0010
Create Date: 2026-11-24 01:00:00.000000
"""
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = '0011'
down_revision: str | None = '0010'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table('season', schema=None) as batch_op:
        batch_op.add_column(sa.Column('schedule', sa.Integer(), nullable=False,
                                      server_default='1'))


def downgrade() -> None:
    with op.batch_alter_table('season', schema=None) as batch_op:
        batch_op.drop_column('schedule')
