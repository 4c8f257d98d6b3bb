"""Ranking: rank fusion, episodes, the final score and the injected block."""
