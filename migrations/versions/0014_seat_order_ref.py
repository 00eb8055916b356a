"""seat order ref: each order given by mail keeps the ref of the mail line that gave it,
unique, so a mail delivered again (a relay's retry after our 4xx) or twice at once keeps
its orders once (pbem.orders.give); orders given on the web have none (NULL, never equal)

Revision ID: 0014
Revises: 0013
Create Date: 2026-11-24 09:00:00.000000
"""
from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision: str = '0014'
down_revision: str | None = '0013'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table('seat_order', schema=None) as batch_op:
        batch_op.add_column(sa.Column('ref', sqlmodel.sql.sqltypes.AutoString(length=300),
                                      nullable=True))
        batch_op.create_unique_constraint(batch_op.f('uq_seat_order_ref'), ['ref'])


def downgrade() -> None:
    with op.batch_alter_table('seat_order', schema=None) as batch_op:
        batch_op.drop_constraint(batch_op.f('uq_seat_order_ref'), type_='unique')
        batch_op.drop_column('ref')
