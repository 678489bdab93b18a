"""Two servers on one table and data folder: the second refuses to start, in one line,
and the lock goes with the first process however it ends."""

import os
import signal
import subprocess
import sys
import time

import pytest

from zatre_vision.server.table_lock import TableBusy, TableLock


def test_a_second_lock_on_the_same_table_is_refused_and_freed_on_release(tmp_path):
    first = TableLock(tmp_path, "table-1").acquire()
    with pytest.raises(TableBusy, match=f"already served .*process {os.getpid()}"):
        TableLock(tmp_path, "table-1").acquire()
    other = TableLock(tmp_path, "table-2").acquire()   # another table is fine
    first.release()
    TableLock(tmp_path, "table-1").acquire().release()
    other.release()


def _serve(tmp_path, port):
    return subprocess.Popen([sys.executable, "-m", "zatre_vision", "serve", "--source", "none",
                             "--host", "127.0.0.1", "--port", str(port), "--data-dir",
                             str(tmp_path / "data"), "--pin", "2468"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _free_port():
    import socket
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_a_second_server_on_the_same_data_refuses_to_start_and_kill_9_frees_the_table(tmp_path):
    first = _serve(tmp_path, _free_port())
    try:
        deadline = time.monotonic() + 30
        lock_file = tmp_path / "data" / ".serve-table-1.lock"
        # the server writes its process id into the file once it holds the lock
        while not (lock_file.exists() and lock_file.read_text() == str(first.pid)):
            assert time.monotonic() < deadline and first.poll() is None
            time.sleep(0.05)
        second = _serve(tmp_path, _free_port())
        out, err = second.communicate(timeout=60)
        assert second.returncode == 2
        lines = err.strip().splitlines()
        assert len(lines) == 1 and "already served" in lines[0], err
    finally:
        first.send_signal(signal.SIGKILL)
        first.wait(10)
    TableLock(tmp_path / "data", "table-1").acquire().release()  # nothing stale left
