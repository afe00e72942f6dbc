"""/healthz reports the database, the broker and the workers."""


def test_healthz_reports_database_broker_and_workers(client):
    res = client.get("/healthz")
    body = res.get_json()
    assert body["database"] == {"ok": True, "dialect": "postgresql"}
    assert body["broker"]["ok"] is True
    assert body["workers"]["count"] == 0 and body["workers"]["ok"] is False
    assert res.status_code == 200


def test_healthz_is_503_when_the_broker_is_unreachable(app):
    app.config["CELERY_BROKER_URL"] = "redis://127.0.0.1:1/0"
    res = app.test_client().get("/healthz")
    assert res.status_code == 503
    assert res.get_json()["broker"]["ok"] is False
