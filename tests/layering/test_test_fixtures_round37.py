"""The per-test database reset (tests.helpers.empty_database) the ~2,000 database tests of the fast lane
run: it leaves no row and restarts every id at 1, in one round trip to the server."""

from __future__ import annotations

from sqlalchemy import event, func, select

from tests.helpers import empty_database


def test_empty_database_leaves_no_row_and_restarts_ids_in_one_statement(app, factory):
    from app.extensions import db
    from app.models import User

    factory.assignment()
    for _ in range(3):
        factory.student()
    factory.token(factory.instructor())
    db.session.remove()

    with app.app_context():
        filled = {t.name: db.session.scalar(select(func.count()).select_from(t)) for t in db.metadata.sorted_tables}
        db.session.remove()
        statements: list[str] = []

        def listener(conn, cursor, statement, *rest) -> None:
            statements.append(statement)

        event.listen(db.engine, "before_cursor_execute", listener)
        try:
            empty_database(app)
        finally:
            event.remove(db.engine, "before_cursor_execute", listener)
        left = {t.name: db.session.scalar(select(func.count()).select_from(t)) for t in db.metadata.sorted_tables}
        db.session.remove()
    assert filled["users"] == 4 and filled["api_tokens"] == 1 and filled["assignments"] == 1
    assert left == dict.fromkeys(left, 0)
    assert len(statements) == 1, statements      # one round trip, whatever the number of tables
    with app.app_context():
        assert factory.student().id == 1         # ids start at 1 again
        assert db.session.get(User, 1).role == "student"
