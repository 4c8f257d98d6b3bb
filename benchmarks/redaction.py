"""The redactor: what it catches, what it wrongly touches, and what it costs per turn.

    python -m benchmarks.redaction ../shared/bench/locomo-dev.json

- recall: the share of the secrets of ``benchmarks/secret_corpus.py`` that are gone after
  redaction (target 100 %);
- false positives: the share of ordinary texts it changes — the corpus's negatives and every
  turn (and image caption) of the LoCoMo file (target ≤ 1 %);
- cost: microseconds per kilobyte of turn text (LoCoMo turns redacted one by one, as
  ``agent_end`` does), and per turn.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path

from benchmarks.common import save_results
from benchmarks.secret_corpus import NEGATIVES, POSITIVES
from openclaw_tinmem.redaction import count_redactions, redact_secrets

ROUNDS = 5


def locomo_texts(path: Path) -> list[str]:
    texts = []
    for sample in json.loads(path.read_text()):
        for key, value in sample["conversation"].items():
            if key.startswith("session_") and isinstance(value, list):
                for turn in value:
                    texts += [text for text in (turn["text"], turn.get("blip_caption")) if text]
    return texts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("path", type=Path, help="a file in LoCoMo's format (ordinary text)")
    parser.add_argument("--output", type=Path, default=Path("benchmarks/results/redaction.json"))
    arguments = parser.parse_args()
    caught = sum(secret not in redact_secrets(text) for text, secret in POSITIVES)
    texts = locomo_texts(arguments.path)
    touched = [text for text in texts if count_redactions(text)[1]]
    negatives_touched = [text for text in NEGATIVES if count_redactions(text)[1]]
    kilobytes = sum(len(text.encode()) for text in texts) / 1024
    per_round = []
    for _ in range(ROUNDS):
        started = time.perf_counter()
        for text in texts:
            redact_secrets(text)
        per_round.append(time.perf_counter() - started)
    seconds = statistics.median(per_round)
    results = {
        "corpus_secrets": len(POSITIVES),
        "corpus_recall_percent": round(100 * caught / len(POSITIVES), 1),
        "corpus_negatives_changed": len(negatives_touched),
        "locomo_texts": len(texts),
        "locomo_false_positive_percent": round(100 * len(touched) / len(texts), 2),
        "microseconds_per_kilobyte": round(seconds * 1e6 / kilobytes, 1),
        "microseconds_per_turn": round(seconds * 1e6 / len(texts), 1),
        "examples_changed": touched[:5],
    }
    print(json.dumps(results, indent=2, ensure_ascii=False))
    save_results(arguments.output, results)


if __name__ == "__main__":
    main()
