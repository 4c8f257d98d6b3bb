"""Many hosts, one memory: writers on object storage against writers on a local directory.

    python -m benchmarks.object_storage --writers 1 2 4 --writes 20

For each writer count, that many OS processes (each with its own home and journal directory,
as separate hosts would have) write to one store — first on a real S3 server (moto's, on
127.0.0.1), then on a local directory (where they share the file lock). Each process stores
``--writes`` memories: event memories (appends), and every third write a fact merged into
the one shared profile memory, so the hosts' merges meet. After every write it times a
recall. Reported, side by side: writes per second over the run, recall p50/p95 while the
others write, lost writes (acknowledged but not stored, or profile facts missing from the
profile), duplicate ids, conflicting merges that were read, decided and retried again, and
writes refused after losing every retry (``StoreError``: the caller is told, the merge is
not written; a captured turn stays in the journal and is tried again later).

The same run kills one writer with SIGKILL in the middle of its writes (``--kill-after``
seconds after it starts) and checks that everything it acknowledged before dying is stored.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

from benchmarks.common import percentiles, save_results
from benchmarks.s3_server import create_bucket, start_moto, storage_options

WRITER = """
import json, sys, time
from openclaw_tinmem.config import Settings
from openclaw_tinmem.errors import StoreError
from openclaw_tinmem.models import Category
from openclaw_tinmem.service import MemoryService

settings = Settings.model_validate_json(sys.argv[1])
host, count = sys.argv[2], int(sys.argv[3])
service = MemoryService.from_settings(settings)
print(json.dumps({"ready": host}), flush=True)
sys.stdin.readline()  # every host starts writing at once
recalls, refused = [], 0
for number in range(count):
    profile = number % 3 == 2
    if profile:
        text = f"Profile note from host {host}: the user's item {number} is a {host}{number} thing"
    else:
        text = f"Host {host} shipped release {number} of the billing service today"
    try:
        outcome = service.remember(text, Category.PROFILE if profile else Category.EVENTS)
    except StoreError:  # lost every retry to other hosts: the caller is told, merge not written
        refused += 1
        continue
    print(json.dumps({"stored": outcome.memory.id, "text": text,
                      "action": outcome.action.value}), flush=True)
    started = time.perf_counter()
    service.recall(f"which release of the billing service did host {host} ship")
    recalls.append((time.perf_counter() - started) * 1000)
print(json.dumps({"recalls": recalls, "conflicts": service.store.conflicts, "refused": refused}),
      flush=True)
service.close()
"""


def _settings(location: str, options: dict[str, str], root: Path) -> Any:
    from openclaw_tinmem.config import Settings

    models = str(Settings().resolved_model_dir())  # this machine's models, not each home's
    return Settings(
        db_path=location,
        storage_options=options,
        journal_path=str(root / "journal"),
        track_access=False,
        optimize_every_writes=10,
        model_dir=models,
    )


def _start(settings: Any, host: str, count: int, root: Path) -> subprocess.Popen[str]:
    home = root / f"home-{host}"
    local = settings.model_copy(update={"journal_path": str(home / "journal")})
    return subprocess.Popen(
        [sys.executable, "-c", WRITER, local.model_dump_json(), host, str(count)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        stderr=(root / f"{host}.log").open("w"),
        env={**os.environ, "HOME": str(home)},
    )


def _lines(process: subprocess.Popen[str]) -> list[dict[str, Any]]:
    assert process.stdout is not None
    return [json.loads(line) for line in process.stdout if line.startswith("{")]


def _check(settings: Any, acknowledged: list[dict[str, Any]]) -> dict[str, int]:
    """Lost writes and duplicate ids, from what the writers acknowledged and what is stored."""
    from openclaw_tinmem.service import MemoryService

    service = MemoryService.from_settings(settings)
    memories = service.store.list_memories(limit=None)
    service.close()
    ids = Counter(memory.id for memory in memories)
    texts = "\n".join(memory.content for memory in memories)
    lost = sum(1 for item in acknowledged if item["stored"] not in ids or item["text"] not in texts)
    return {"lost_writes": lost, "duplicate_ids": sum(n - 1 for n in ids.values() if n > 1)}


def run_case(location: str, options: dict[str, str], writers: int, writes: int) -> dict[str, Any]:
    root = Path(tempfile.mkdtemp(prefix="tinmem-hosts-"))
    settings = _settings(location, options, root)
    from openclaw_tinmem.service import MemoryService

    MemoryService.from_settings(settings).remember("The user is called Ada", "profile")  # type: ignore[arg-type]
    processes = [_start(settings, f"h{index}", writes, root) for index in range(writers)]
    for process in processes:  # wait until every host has loaded its models
        assert process.stdout is not None
        process.stdout.readline()
    started = time.perf_counter()
    for process in processes:
        assert process.stdin is not None
        process.stdin.write("go\n")
        process.stdin.flush()
    outputs = [_lines(process) for process in processes]
    elapsed = time.perf_counter() - started
    failed = [index for index, process in enumerate(processes) if process.wait() != 0]
    if failed:
        raise SystemExit(f"writer(s) {failed} failed; see {root}/h*.log")
    acknowledged = [item for lines in outputs for item in lines if "stored" in item]
    checked = _check(settings, acknowledged)
    shutil.rmtree(root, ignore_errors=True)  # the hosts' journals and logs, read
    recalls = [value for lines in outputs for item in lines for value in item.get("recalls", [])]
    conflicts = sum(item.get("conflicts", 0) for lines in outputs for item in lines)
    refused = sum(item.get("refused", 0) for lines in outputs for item in lines)
    return {
        "writers": writers,
        "writes": len(acknowledged),
        "writes_per_second": round(len(acknowledged) / elapsed, 2),
        "recall_ms": percentiles(recalls),
        "conflicts_retried": conflicts,
        "writes_refused": refused,
        **checked,
    }


def run_kill(
    location: str, options: dict[str, str], writes: int, kill_after: float
) -> dict[str, Any]:
    root = Path(tempfile.mkdtemp(prefix="tinmem-kill-"))
    settings = _settings(location, options, root)
    process = _start(settings, "victim", writes, root)
    assert process.stdout is not None and process.stdin is not None
    process.stdout.readline()
    process.stdin.write("go\n")
    process.stdin.flush()
    time.sleep(kill_after)
    process.send_signal(signal.SIGKILL)
    acknowledged = [item for item in _lines(process) if "stored" in item]
    process.wait()
    checked = _check(settings, acknowledged)
    shutil.rmtree(root, ignore_errors=True)
    return {"acknowledged_before_kill": len(acknowledged), **checked}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--writers", type=int, nargs="+", default=[1, 2, 4])
    parser.add_argument("--writes", type=int, default=20, help="memories per writer")
    parser.add_argument("--kill-after", type=float, default=6.0, help="seconds")
    parser.add_argument(
        "--output", type=Path, default=Path("benchmarks/results/object_storage.json")
    )
    arguments = parser.parse_args()
    server, endpoint = start_moto()
    results: dict[str, Any] = {"command": " ".join(sys.argv), "cases": []}
    try:
        for writers in arguments.writers:
            for kind in ("s3", "local"):
                if kind == "s3":
                    bucket = f"bench-{writers}-{int(time.time())}"
                    create_bucket(endpoint, bucket)
                    location, options = f"s3://{bucket}/memory", storage_options(endpoint)
                else:
                    location, options = tempfile.mkdtemp(prefix="tinmem-local-"), {}
                case = {"store": kind, **run_case(location, options, writers, arguments.writes)}
                if kind == "local":
                    shutil.rmtree(location, ignore_errors=True)
                print(json.dumps(case), flush=True)
                results["cases"].append(case)
        create_bucket(endpoint, "bench-kill")
        killed = run_kill(
            "s3://bench-kill/memory", storage_options(endpoint), 200, arguments.kill_after
        )
        print(json.dumps({"kill": killed}), flush=True)
        results["kill"] = killed
    finally:
        server.terminate()
        server.wait(timeout=10)
    save_results(arguments.output, results)


if __name__ == "__main__":
    main()
