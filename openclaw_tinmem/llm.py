"""The LLM client: instructor over the ``openai`` client, against any OpenAI-compatible server.

Every failure (timeout, HTTP error, output that does not fit the schema after the allowed
re-asks) becomes an ``LLMError``; an LLM that is down never looks like "nothing to remember".
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from typing import Any, TypeVar

from pydantic import BaseModel

from openclaw_tinmem.config import Settings
from openclaw_tinmem.errors import LLMError

logger = logging.getLogger("openclaw_tinmem")
ResponseModel = TypeVar("ResponseModel", bound=BaseModel)
PLACEHOLDER_API_KEY = "not-needed"  # local OpenAI-compatible servers often want no key


class LLMClient:
    """Structured chat completions with bounded retries."""

    def __init__(self, settings: Settings, *, http_client: Any = None) -> None:
        import instructor
        from openai import OpenAI

        modes = {
            "md_json": instructor.Mode.MD_JSON,
            "json": instructor.Mode.JSON,
            "tools": instructor.Mode.TOOLS,
        }
        self.settings = settings
        self.model = settings.llm_model
        raw = OpenAI(
            base_url=settings.llm_endpoint(),
            api_key=settings.api_key() or PLACEHOLDER_API_KEY,
            timeout=settings.llm_timeout_seconds,
            max_retries=settings.llm_max_retries,
            http_client=http_client,
        )
        self._client = instructor.from_openai(raw, mode=modes[settings.llm_mode])
        self.calls = 0
        self.seconds = 0.0  # time spent in LLM calls (client, network, parsing), for metrics

    def complete(
        self, response_model: type[ResponseModel], system: str, user: str
    ) -> ResponseModel:
        """One structured completion; invalid output is re-asked up to ``llm_max_retries`` times."""
        self.calls += 1
        started = time.perf_counter()
        try:
            result = self._client.chat.completions.create(
                model=self.model,
                response_model=response_model,
                messages=[{"role": "system", "content": system}, {"role": "user", "content": user}],
                max_retries=self.settings.llm_max_retries,
                temperature=0,
            )
        except Exception as error:  # openai, httpx and instructor raise many unrelated types
            raise LLMError(
                f"LLM request to {self.model} failed: {type(error).__name__}: {error}"
            ) from error
        finally:
            self.seconds += time.perf_counter() - started
        if not isinstance(result, response_model):
            raise LLMError(
                f"LLM returned {type(result).__name__}, expected {response_model.__name__}"
            )
        return result


Answer = TypeVar("Answer")
_deadline_pool = ThreadPoolExecutor(max_workers=4, thread_name_prefix="tinmem-llm-call")


class Deadline:
    """An overall time box for the LLM calls of one tool call.

    ``run`` waits for an LLM-backed decision only as long as the box has left, then takes the
    no-LLM answer instead and remembers that it did (``timed_out``); the abandoned call ends
    on its own (``llm_timeout_seconds``) in a background thread. Nothing waits on a network
    while holding a lock: callers decide first and lock afterwards.
    """

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self._ends = time.monotonic() + seconds
        self.timed_out = False

    def remaining(self) -> float:
        return max(self._ends - time.monotonic(), 0.0)

    def run(self, call: Callable[[], Answer], fallback: Callable[[], Answer]) -> Answer:
        future = _deadline_pool.submit(call)
        try:
            return future.result(timeout=self.remaining())
        except FutureTimeout:
            self.timed_out = True
            logger.warning("the LLM did not answer within %.1fs; deciding without it", self.seconds)
            return fallback()

    def note(self) -> str:
        """What a result says when the box ran out."""
        return f"LLM did not answer within {self.seconds:g}s: decided without it"
