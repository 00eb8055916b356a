"""account keys: each player's secret account address pbem+KEY@DOMAIN and each league's
organiser address organiser+KEY@DOMAIN (issue 29: every command proves who sends it);
existing players and leagues get a fresh random key each

Revision ID: 0015
Revises: 0014
Create Date: 2026-11-28 10:00:00.000000
"""
import base64
import secrets
from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision: str = '0015'
down_revision: str | None = '0014'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

KEYS = (('player', 'account_key'), ('league', 'organiser_key'))


def _key() -> str:  # as pbem.store.models.new_key, frozen here as migrations are
    return base64.b32encode(secrets.token_bytes(10)).decode().lower()


def upgrade() -> None:
    bind = op.get_bind()
    for table, column in KEYS:
        with op.batch_alter_table(table, schema=None) as batch_op:
            batch_op.add_column(sa.Column(column, sqlmodel.sql.sqltypes.AutoString(length=40),
                                          nullable=True))
        t = sa.table(table, sa.column('id', sa.Integer), sa.column(column, sa.String))
        ids = bind.execute(sa.select(t.c.id)).scalars().all()
        if ids:
            bind.execute(t.update().where(t.c.id == sa.bindparam('row_id'))
                         .values({column: sa.bindparam('key')}),
                         [{'row_id': i, 'key': _key()} for i in ids])
        with op.batch_alter_table(table, schema=None) as batch_op:
            batch_op.alter_column(column, existing_type=sqlmodel.sql.sqltypes.AutoString(
                length=40), nullable=False)
            batch_op.create_unique_constraint(batch_op.f(f'uq_{table}_{column}'), [column])


def downgrade() -> None:
    for table, column in KEYS:
        with op.batch_alter_table(table, schema=None) as batch_op:
            batch_op.drop_constraint(batch_op.f(f'uq_{table}_{column}'), type_='unique')
            batch_op.drop_column(column)
