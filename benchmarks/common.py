"""Helpers shared by the benchmark scripts."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np


def percentiles(values: list[float]) -> dict[str, float]:
    """p50 and p95 of timings in milliseconds, rounded for reporting."""
    return {
        "p50": round(float(np.percentile(values, 50)), 2),
        "p95": round(float(np.percentile(values, 95)), 2),
    }


def save_results(path: Path, results: dict[str, Any]) -> None:
    """Write the results JSON (benchmarks/results/ is not committed)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(results, indent=2))
