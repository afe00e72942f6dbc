"""The crash `autograder worker` supervises against, reproduced with the pinned kombu.

When the broker drops, Celery calls ``Connection.collect()``. Closing the channels there restores
their unacknowledged messages, which fails with a connection error on the first channel and
leaves the others open; then the transport is detached (``transport.client = None``). When Celery
later closes one of those channels (its task consumer), the restore builds a Redis client from
``connection.client.hostname`` and raises AttributeError, which Celery reports as "Unrecoverable
error" and exits. If a kombu upgrade fixes this, this test fails: the supervisor then guards
against nothing known, and README's explanation should say so.
"""

from __future__ import annotations

import pytest
from kombu import Connection, Exchange, Queue

pytestmark = [pytest.mark.redis]


def test_a_broker_drop_with_unacked_messages_on_two_channels_crashes_kombu_on_close(private_redis):
    with Connection(private_redis.url) as producer:
        for name in ("a", "b"):
            producer.SimpleQueue(name).put({"run": name})
    conn = Connection(private_redis.url)
    channels = []
    for name in ("a", "b"):
        channel = conn.channel()
        channel.basic_qos(0, 1, False)
        conn.Consumer(Queue(name, Exchange(name), name), channel=channel, callbacks=[lambda body, msg: None],
                      accept=["json"]).consume()
        channels.append(channel)
    for _ in range(4):  # acks_late: each channel now holds one delivered, unacknowledged message
        try:
            conn.drain_events(timeout=1)
        except TimeoutError:
            pass
    assert [len(c.qos._delivered) for c in channels] == [1, 1]

    private_redis.stop()  # the broker drops
    conn.collect(socket_timeout=1)  # what Celery's consumer does on a connection error
    still_open = [c for c in channels if not c.closed]
    assert len(still_open) == 1
    with pytest.raises(AttributeError, match="'NoneType' object has no attribute 'hostname'"):
        still_open[0].close()  # what Celery's task-consumer shutdown does next
