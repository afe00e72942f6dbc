import logging
from logging.config import fileConfig

from alembic import context
from flask import current_app

# this is the Alembic Config object, which provides
# access to the values within the .ini file in use.
config = context.config

# Interpret the config file for Python logging.
# This line sets up loggers basically.
fileConfig(config.config_file_name, disable_existing_loggers=False)
logger = logging.getLogger('alembic.env')


def get_engine():
    return current_app.extensions['migrate'].db.engine


def get_engine_url():
    try:
        return get_engine().url.render_as_string(hide_password=False).replace(
            '%', '%%')
    except AttributeError:
        return str(get_engine().url).replace('%', '%%')


# add your model's MetaData object here
# for 'autogenerate' support
# from myapp import mymodel
# target_metadata = mymodel.Base.metadata
config.set_main_option('sqlalchemy.url', get_engine_url())
target_db = current_app.extensions['migrate'].db

# other values from the config, defined by the needs of env.py,
# can be acquired:
# my_important_option = config.get_main_option("my_important_option")
# ... etc.


def get_metadata():
    if hasattr(target_db, 'metadatas'):
        return target_db.metadatas[None]
    return target_db.metadata


def run_migrations_offline():
    """Run migrations in 'offline' mode.

    This configures the context with just a URL
    and not an Engine, though an Engine is acceptable
    here as well.  By skipping the Engine creation
    we don't even need a DBAPI to be available.

    Calls to context.execute() here emit the given string to the
    script output.

    """
    url = config.get_main_option("sqlalchemy.url")
    context.configure(
        url=url, target_metadata=get_metadata(), literal_binds=True
    )

    with context.begin_transaction():
        context.run_migrations()


def run_migrations_online():
    """Run migrations in 'online' mode.

    In this scenario we need to create an Engine
    and associate a connection with the context.

    """

    # this callback is used to prevent an auto-migration from being generated
    # when there are no changes to the schema
    # reference: http://alembic.zzzcomputing.com/en/latest/cookbook.html
    def process_revision_directives(context, revision, directives):
        if getattr(config.cmd_opts, 'autogenerate', False):
            script = directives[0]
            if script.upgrade_ops.is_empty():
                directives[:] = []
                logger.info('No changes in schema detected.')

    conf_args = current_app.extensions['migrate'].configure_args
    if conf_args.get("process_revision_directives") is None:
        conf_args["process_revision_directives"] = process_revision_directives

    connectable = get_engine()

    with connectable.connect() as connection:
        context.configure(
            connection=connection,
            target_metadata=get_metadata(),
            **conf_args
        )

        with context.begin_transaction():
            timeout_ms = _lock_timeout(connection) if connection.dialect.name == "postgresql" else None
            try:
                context.run_migrations()
            except Exception as exc:
                if getattr(getattr(exc, "orig", None), "sqlstate", None) == "55P03":     # lock_not_available
                    logger.error("a table lock was held by another transaction for more than %g s "
                                 "(MIGRATION_LOCK_TIMEOUT_S): nothing was applied; end that transaction or wait, "
                                 "then run `autograder db upgrade` again", (timeout_ms or 0) / 1000)
                raise


def _lock_timeout(connection) -> int:
    """Fail instead of queueing the service's writers behind a lock held by a long transaction
    (autograder/settings.py, MIGRATION_LOCK_TIMEOUT_S); the timeout in ms. SET LOCAL: it ends with the migration's
    transaction, never left on a pooled connection the app goes on using (a plain SET was, review of round 35)."""
    from autograder import settings

    timeout_ms = max(1, round(settings.MIGRATION_LOCK_TIMEOUT_S * 1000))   # 0 would mean no timeout at all
    connection.exec_driver_sql(f"SET LOCAL lock_timeout = {timeout_ms}")
    logger.info("lock_timeout %d ms: a lock held longer ends the migration, nothing applied", timeout_ms)
    return timeout_ms


if context.is_offline_mode():
    run_migrations_offline()
else:
    run_migrations_online()
