"""The own channel keeps its word (issue 43 item 5, docs/channel.md, SPEC §4.4 and §12.2): its messages carry
`_nid` so opens are attributed; a replaced connection is closed at once with close code 4409; `welcome` is
every connection's first frame, also for devices that connect while a push fans out to them; message ids
are each device's own sequence."""

import asyncio
import json
import secrets
import time

import pytest
import requests
import websockets
from websockets.exceptions import ConnectionClosed

from test_device_channel import Device, ack, device_server, next_message, push, wait_record  # noqa: F401


def test_channel_messages_carry_nid_and_their_opens_are_attributed(server, push_app, device_server):
    device = Device(push_app, device_server)
    with device.connect() as ws:
        push_id = push(server, push_app, {"where": {"installationId": device.installation_id},
                                          "data": {"alert": "open me"}})
        frame = next_message(ws)
        assert frame["data"]["_nid"] == push_id, frame
        ack(ws, frame)
    wait_record(server, push_app, push_id, lambda r: r["successes"] == 1)
    # The app opens naming the push by the payload's _nid, as the SDK does.
    opened = requests.post(server.url("/events/AppOpened"), timeout=10,
                           json={"installationId": device.installation_id, "notificationId": frame["data"]["_nid"]},
                           headers={"X-LC-Id": push_app.app_id, "X-LC-Key": push_app.app_key})
    assert opened.status_code == 201 and opened.json()["notificationId"] == push_id, opened.text
    assert wait_record(server, push_app, push_id, lambda r: r["opens"] == 1)["opens"] == 1


def test_a_replaced_connection_is_closed_within_a_second(push_app, device_server):
    device = Device(push_app, device_server)
    with device.connect() as old:
        with device.connect() as new:
            started = time.monotonic()
            with pytest.raises(ConnectionClosed) as closed:
                while True:
                    old.recv(timeout=5)
            assert time.monotonic() - started < 1.0
            assert closed.value.rcvd.code == 4409, closed.value
            # The new connection is the device's now, and it answers pings.
            assert new.ping().wait(timeout=5)


def test_message_ids_are_each_devices_own_sequence(server, push_app, device_server):
    channel = "seq_" + secrets.token_hex(4)
    first, second = Device(push_app, device_server, channels=[channel]), Device(push_app, device_server)
    push(server, push_app, {"where": {"installationId": second.installation_id}, "data": {"alert": "only b"}})
    pushes = [push(server, push_app, {"channels": [channel], "data": {"alert": str(n)}}) for n in range(3)]
    for pid in pushes:
        wait_record(server, push_app, pid, lambda r: r["channelPending"] == 1)
    with first.connect() as ws:
        frames = [next_message(ws) for _ in range(3)]
    # Numbered in the order the fan-out stored them (its senders take the three pushes in any order).
    assert [f["id"] for f in frames] == ["1", "2", "3"], frames
    assert sorted(f["pushId"] for f in frames) == sorted(pushes)


def test_welcome_comes_first_on_every_connection_made_during_a_fan_out(server, push_app, device_server):
    count = 500
    channel = "storm_" + secrets.token_hex(4)
    devices = []
    headers = {"X-LC-Id": push_app.app_id, "X-LC-Key": push_app.app_key}
    with requests.Session() as session:
        for _ in range(count):
            installation_id = "storm-" + secrets.token_hex(8)
            r = session.post(device_server + "/1.1/installations", headers=headers, timeout=10,
                             json={"deviceType": "android", "installationId": installation_id, "channels": [channel]})
            assert r.status_code == 201, r.text
            devices.append((installation_id, r.json()["channelToken"]))
    base = device_server.replace("http://", "ws://")

    async def one(installation_id, token, delay):
        await asyncio.sleep(delay)
        url = "%s/channel?appId=%s&installationId=%s&token=%s" % (
            base, push_app.app_id, installation_id, requests.utils.quote(token))
        async with websockets.connect(url, open_timeout=30, max_queue=None) as ws:
            first = json.loads(await asyncio.wait_for(ws.recv(), 30))
            while True:
                frame = json.loads(await asyncio.wait_for(ws.recv(), 60))
                if frame["type"] == "message":
                    await ws.send(json.dumps({"type": "ack", "id": frame["id"]}))
                    return first["type"], frame["pushId"]

    async def storm():
        # The push starts while the devices are still connecting, spread over about two seconds.
        tasks = [asyncio.create_task(one(iid, token, i * 2.0 / count)) for i, (iid, token) in enumerate(devices)]
        await asyncio.sleep(0.3)
        push_id = await asyncio.to_thread(push, server, push_app, {"channels": [channel], "data": {"alert": "storm"}})
        return push_id, await asyncio.gather(*tasks)

    push_id, results = asyncio.run(storm())
    firsts = [first for first, _ in results]
    assert firsts == ["welcome"] * count, {f: firsts.count(f) for f in set(firsts)}
    assert {pid for _, pid in results} == {push_id}
    rec = wait_record(server, push_app, push_id, lambda r: r["successes"] == count, timeout=60)
    assert (rec["devices"], rec["errors"], rec["channelPending"]) == (count, 0, 0), rec
