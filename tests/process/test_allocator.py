import os
import subprocess
import sys

import pytest

PROGRAM = "from openclaw_tinmem.process.allocator import limit_arenas; print(limit_arenas())"


def run_program(environment: dict[str, str]) -> str:
    """limit_arenas in a process of its own: the cap is process-wide."""
    done = subprocess.run(
        [sys.executable, "-c", PROGRAM], env=environment, capture_output=True, text=True, check=True
    )
    return done.stdout.strip()


@pytest.mark.skipif(sys.platform != "linux", reason="glibc's arenas are a Linux matter")
def test_the_arenas_are_capped_on_linux_with_glibc() -> None:
    import platform

    environment = {key: value for key, value in os.environ.items() if key != "MALLOC_ARENA_MAX"}
    expected = "True" if platform.libc_ver()[0] == "glibc" else "False"
    assert run_program(environment) == expected


def test_an_explicit_malloc_arena_max_is_left_alone() -> None:
    assert run_program({**os.environ, "MALLOC_ARENA_MAX": "8"}) == "False"
