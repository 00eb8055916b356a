"""robot levels: a seat's own robot level (issue 33), None for the rules' `robot` option

Revision ID: 0018
Revises: 0017
Create Date: 2026-11-29 00:45:00.000000
"""
from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision: str = '0018'
down_revision: str | None = '0017'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table('seat', schema=None) as batch_op:
        batch_op.add_column(sa.Column('robot_level',
                                      sqlmodel.sql.sqltypes.AutoString(length=10),
                                      nullable=True))


def downgrade() -> None:
    with op.batch_alter_table('seat', schema=None) as batch_op:
        batch_op.drop_column('robot_level')
