"""league fair: timeout forfeits, a withdrawn entry's games struck or standing, and each
season's results version (the key of the cached standings and ratings)

Revision ID: 0010
Revises: 0009
Create Date: 2026-11-24 00:00:00.000000
"""
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = '0010'
down_revision: str | None = '0009'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table('league', schema=None) as batch_op:
        batch_op.add_column(sa.Column('timeout_forfeit', sa.Integer(), nullable=True))
    with op.batch_alter_table('entry', schema=None) as batch_op:
        batch_op.add_column(sa.Column('games', sa.String(length=10), nullable=False,
                                      server_default='stand'))
    with op.batch_alter_table('season', schema=None) as batch_op:
        batch_op.add_column(sa.Column('version', sa.Integer(), nullable=False,
                                      server_default='0'))


def downgrade() -> None:
    with op.batch_alter_table('season', schema=None) as batch_op:
        batch_op.drop_column('version')
    with op.batch_alter_table('entry', schema=None) as batch_op:
        batch_op.drop_column('games')
    with op.batch_alter_table('league', schema=None) as batch_op:
        batch_op.drop_column('timeout_forfeit')
