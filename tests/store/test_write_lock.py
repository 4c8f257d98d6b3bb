import subprocess
import sys
import textwrap
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from openclaw_tinmem.errors import StoreError
from openclaw_tinmem.store.write_lock import LOCK_FILE_NAME, WriteLock


def test_reentrant_in_one_thread_and_exclusive_across_threads(tmp_path: Path) -> None:
    acquisitions: list[str] = []
    lock = WriteLock(tmp_path, 5.0, on_acquire=lambda: acquisitions.append("outermost"))
    inside = threading.Event()
    order: list[str] = []

    def other() -> None:
        assert inside.wait(5)
        with lock.hold():
            order.append("other thread")

    thread = threading.Thread(target=other)
    thread.start()
    with lock.hold(), lock.hold():  # re-entrant: no deadlock, on_acquire not run again
        assert not lock.held_by_another_thread()
        inside.set()
        thread.join(0.2)
        assert thread.is_alive()  # the other thread waits for us
        order.append("this thread")
    thread.join(5)
    assert order == ["this thread", "other thread"]
    assert acquisitions == ["outermost", "outermost"]  # once per outermost hold


def test_another_thread_holding_it_is_visible_to_readers(tmp_path: Path) -> None:
    lock = WriteLock(tmp_path, 5.0, on_acquire=lambda: None)
    holding, release = threading.Event(), threading.Event()

    def writer() -> None:
        with lock.hold():
            holding.set()
            assert release.wait(5)

    thread = threading.Thread(target=writer)
    thread.start()
    assert holding.wait(5)
    assert lock.held_by_another_thread()
    release.set()
    thread.join(5)
    assert not lock.held_by_another_thread()


@contextmanager
def held_by_another_process(directory: Path) -> Iterator[None]:
    """The store's lock file in ``directory`` held by another process while inside."""
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            textwrap.dedent(f"""
            import time
            from filelock import FileLock
            with FileLock({str(directory / LOCK_FILE_NAME)!r}):
                print("held", flush=True)
                time.sleep(30)
        """),
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        yield
    finally:
        holder.kill()
        holder.wait()


def test_another_process_holding_it_times_out_with_the_lock_file_named(tmp_path: Path) -> None:
    with held_by_another_process(tmp_path):
        lock = WriteLock(tmp_path, 0.2, on_acquire=lambda: None)
        with pytest.raises(StoreError, match=LOCK_FILE_NAME), lock.hold():
            pass
        remote = WriteLock(None, 0.2, on_acquire=lambda: None)  # a remote store: no lock file
        with remote.hold():  # so the file held by the other process does not stop it
            assert not remote.held_by_another_thread()


def test_an_up_to_date_store_opens_and_reads_while_another_process_writes(  # type: ignore[no-untyped-def]
    settings, make_service
) -> None:
    from openclaw_tinmem.models import Category

    first = make_service(settings)
    first.remember("The staging database is called Nimbus.", Category.ENTITIES)
    first.close()
    with held_by_another_process(Path(settings.db_path)):
        reader = make_service(settings.model_copy(update={"lock_timeout_seconds": 0.5}))
        (hit,) = reader.recall("What is the staging database called?", limit=1)
        assert "Nimbus" in hit.memory.content
        with pytest.raises(StoreError, match=LOCK_FILE_NAME):  # a write still waits its turn
            reader.remember("The build server is Atlas.", Category.ENTITIES)
