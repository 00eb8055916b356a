"""league ledger: each fixture keeps the season version at which its result was last
written or ruled on, so a reader folds in only the fixtures changed since the version it
holds (pbem.league.ledger: standings kept current per result, issue 15)

Revision ID: 0013
Revises: 0012
Create Date: 2026-11-24 03:00:00.000000
"""
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = '0013'
down_revision: str | None = '0012'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table('fixture', schema=None) as batch_op:
        batch_op.add_column(sa.Column('version', sa.Integer(), nullable=False,
                                      server_default='0'))
        batch_op.create_index('ix_fixture_season_version', ['season_id', 'version'],
                              unique=False)


def downgrade() -> None:
    with op.batch_alter_table('fixture', schema=None) as batch_op:
        batch_op.drop_index('ix_fixture_season_version')
        batch_op.drop_column('version')
