"""A table's name held by a lease in the shared database (issue 62): a second holder
is refused with the first one's address, a lease nobody renews lapses, a holder known
to be gone is taken over, and two asking at once get one lease between them."""

import threading
import time

import pytest

from zatre_vision.server.table_lease import TableLease, gone_on_this_boot
from zatre_vision.store.leases import Holder, TableLeases, TableNameTaken

ONE = Holder("http://zatre-1.local:8000/", "boot-a", 101)
TWO = Holder("http://192.168.4.12:8000/", "boot-b", 202)


def test_a_second_server_with_the_name_is_refused_naming_the_holder(databases):
    leases = TableLeases(databases.open())
    token = leases.acquire("table-1", ONE, ttl_s=30)
    with pytest.raises(TableNameTaken) as refused:
        TableLeases(databases.open()).acquire("table-1", TWO, ttl_s=30)
    message = str(refused.value)
    assert "\n" not in message and "http://zatre-1.local:8000/" in message
    assert message.startswith("table 'table-1' is already served by")
    assert TableLeases(databases.open()).acquire("table-2", TWO, ttl_s=30)  # another name
    assert [r["name"] for r in leases.live()] == ["table-1", "table-2"]
    leases.release("table-1", token)                                       # a clean stop
    assert TableLeases(databases.open()).acquire("table-1", TWO, ttl_s=30)
    assert leases.holder("table-1")["address"] == TWO.address


def test_a_lease_nobody_renews_lapses_and_a_renewed_one_holds(databases):
    leases = TableLeases(databases.open())
    kept = leases.acquire("kept", ONE, ttl_s=1.0)
    leases.acquire("dead", ONE, ttl_s=1.0)
    time.sleep(0.6)
    assert leases.renew("kept", kept, ttl_s=1.0)
    time.sleep(0.6)                       # "dead" lapsed, "kept" has 0.4 s left
    other = TableLeases(databases.open())
    assert other.acquire("dead", TWO, ttl_s=30)
    with pytest.raises(TableNameTaken):
        other.acquire("kept", TWO, ttl_s=30)
    assert [r["name"] for r in leases.live()] == ["dead", "kept"]
    assert not leases.renew("dead", "not-the-token", ttl_s=30)   # taken: no longer ours


def test_a_holder_gone_from_this_boot_is_taken_over_at_once(databases):
    leases = TableLeases(databases.open())
    leases.acquire("table-1", ONE, ttl_s=30)
    alive = {101: False}
    again = Holder("http://zatre-1.local:8000/", "boot-a", 303)   # systemd's restart
    assert leases.acquire("table-1", again, ttl_s=30,
                          holder_gone=gone_on_this_boot("boot-a", alive.get))
    assert leases.holder("table-1")["pid"] == 303
    with pytest.raises(TableNameTaken):  # another machine's process: not known gone
        leases.acquire("table-1", TWO, ttl_s=30,
                       holder_gone=gone_on_this_boot("boot-b", lambda pid: False))
    with pytest.raises(TableNameTaken):  # same boot, process still there
        leases.acquire("table-1", ONE, ttl_s=30,
                       holder_gone=gone_on_this_boot("boot-a", lambda pid: True))


def test_six_servers_asking_for_one_name_at_once_get_one_lease(databases):
    databases.open().close()              # the schema first (its own test: start together)
    barrier = threading.Barrier(6)
    won, refused = [], []

    def ask(i):
        leases = TableLeases(databases.open())
        barrier.wait()
        try:
            won.append(leases.acquire("table-1", Holder(f"http://t{i}:8000/", "b", i), 30))
        except TableNameTaken as exc:
            refused.append(str(exc))

    threads = [threading.Thread(target=ask, args=(i,)) for i in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert len(won) == 1 and len(refused) == 5
    holder = TableLeases(databases.open()).holder("table-1")
    assert holder["token"] == won[0]
    assert all(holder["address"] in line for line in refused)


def test_a_server_whose_lease_was_taken_is_told_once(databases):
    store = databases.open()
    lost = []
    lease = TableLease(TableLeases(store), "table-1", "http://a:8000/", on_lost=lost.append,
                       ttl_s=0.3, renew_s=0.1, boot="boot-a").acquire()
    try:
        time.sleep(0.35)
        assert lost == []                              # renewed meanwhile: still ours
        with store.transaction():                      # as if it had lapsed and been taken
            store._exec("UPDATE table_leases SET token = 'x', address = 'http://b:8000/'")
        deadline = time.monotonic() + 5
        while not lost and time.monotonic() < deadline:
            time.sleep(0.05)
        assert lost == ["table 'table-1': its lease was taken by http://b:8000/ while this "
                        "server could not renew it; stopping"]
    finally:
        lease.release()
    assert TableLeases(store).holder("table-1")["address"] == "http://b:8000/"  # not ours
