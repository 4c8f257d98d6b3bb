"""The one loop of every conditional write (``commit_until_it_lands``)."""

import threading
from collections.abc import Iterator
from contextlib import contextmanager

import pytest

from openclaw_tinmem.errors import StoreError
from openclaw_tinmem.store.conditional import COMMIT_ATTEMPTS, commit_until_it_lands


class CountingLock:
    """A real lock that counts how often it was taken, and whether it is held now."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.taken = 0

    @contextmanager
    def __call__(self) -> Iterator[None]:
        with self.lock:
            self.taken += 1
            yield


def test_an_attempt_refused_by_another_writer_is_tried_again_under_the_lock() -> None:
    lock = CountingLock()
    answers = iter([None, None, "written"])

    def attempt() -> str | None:
        assert lock.lock.locked()  # decided and committed under the write lock
        return next(answers)

    assert commit_until_it_lands(lock, attempt, "gave up") == "written"
    assert lock.taken == 3


def test_an_empty_result_is_a_write_that_landed() -> None:
    lock = CountingLock()
    assert commit_until_it_lands(lock, lambda: [], "gave up") == []
    assert lock.taken == 1


def test_a_write_always_refused_gives_up_with_the_callers_words() -> None:
    lock = CountingLock()
    with pytest.raises(StoreError, match=r"gave up writing notes\.md"):
        commit_until_it_lands(lock, lambda: None, "gave up writing notes.md")
    assert lock.taken == COMMIT_ATTEMPTS


def test_an_error_inside_an_attempt_is_not_retried_and_releases_the_lock() -> None:
    lock = CountingLock()

    def attempt() -> None:
        raise PermissionError("no")

    with pytest.raises(PermissionError):
        commit_until_it_lands(lock, attempt, "gave up")
    assert lock.taken == 1 and not lock.lock.locked()
