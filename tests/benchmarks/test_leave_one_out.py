import json
from pathlib import Path

from benchmarks.leave_one_out import leave_one_out, per_conversation


def results_file(path: Path, figures: dict[str, dict[str, float]]) -> Path:
    path.write_text(
        json.dumps(
            {
                "results": [
                    {
                        "name": name,
                        "by_conversation": {
                            sample: {"frac@10": value, "ndcg@10": value, "questions": 10}
                            for sample, value in samples.items()
                        },
                    }
                    for name, samples in figures.items()
                ]
            }
        )
    )
    return path


def test_a_setting_that_wins_on_one_conversation_alone_is_not_chosen(tmp_path: Path) -> None:
    path = results_file(
        tmp_path / "bench.json",
        {
            "steady": {"a": 60.0, "b": 60.0, "c": 60.0},
            "lucky": {"a": 95.0, "b": 40.0, "c": 40.0},
            "peer: other": {"a": 99.0, "b": 99.0, "c": 99.0},
        },
    )
    report = leave_one_out(per_conversation([path], "frac@10"))
    assert report["pooled"] == {"steady": 60.0, "lucky": 58.3}  # peers are never chosen
    # left out, "lucky" wins only where its one good conversation is among the others
    assert report["chosen"] == {"bench:a": "steady", "bench:b": "lucky", "bench:c": "lucky"}
    assert report["held_out_mean"] == round((60.0 + 40.0 + 40.0) / 3, 1)
