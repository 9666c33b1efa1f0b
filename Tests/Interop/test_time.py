import time

from conftest import now_tt


def test_time_returns_current_17_digit_timetoken(node):
    pn = node.client("time")
    before = now_tt()
    envelope = pn.time().sync()
    after = now_tt()

    tt = int(envelope.result)
    assert envelope.status.status_code == 200
    assert len(str(tt)) == 17, "timetoken %r is not 17 digits" % tt
    # Same machine: the node's clock may not differ from ours by more than a few seconds.
    slack = 5 * 10_000_000
    assert before - slack <= tt <= after + slack, (
        "timetoken %d is %.3f s away from local time" % (tt, (tt - (before + after) / 2) / 1e7))


def test_time_advances(node):
    pn = node.client("time")
    first = int(pn.time().sync().result)
    time.sleep(0.05)
    second = int(pn.time().sync().result)
    assert second > first
