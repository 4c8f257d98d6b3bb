"""The ``tinmem`` group, its shared state and helpers; commands live beside it.

Only click and plain constants are imported at start-up, so ``tinmem --help`` and
``tinmem --version`` answer at once; the store, the models and rich load when a command
needs them.
"""

from __future__ import annotations

import json
import logging
import os
import select
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from functools import cache
from typing import TYPE_CHECKING, Any

import click

from openclaw_tinmem.categories import Category
from openclaw_tinmem.errors import TinmemError, describe_failure
from openclaw_tinmem.locations import DEBUG_VARIABLE, DEFAULT_CONFIG_PATH
from openclaw_tinmem.text import terminal_safe

if TYPE_CHECKING:
    from rich.console import Console
    from rich.progress import Progress

    from openclaw_tinmem.access import Identity
    from openclaw_tinmem.config import Settings
    from openclaw_tinmem.models import Memory
    from openclaw_tinmem.service import MemoryService
    from openclaw_tinmem.tools.toolbox import Toolbox

logger = logging.getLogger("openclaw_tinmem")

EXIT_INVALID = 2
EXIT_FAILED = 1  # the input was fine; the store, a model or the system failed
EXIT_BROKEN_PIPE = 141  # as a command the shell stops with SIGPIPE: 128 + 13
CATEGORY_CHOICE = click.Choice([category.value for category in Category])
JSON_HELP = "Print JSON instead of text."


@cache
def console() -> Console:
    """The console for messages and progress: standard error, so stdout stays data."""
    from rich.console import Console

    return Console(stderr=True, soft_wrap=True)  # a long message stays one line in a log


@dataclass
class CliState:
    """Settings and a lazily built service shared by the commands of one invocation."""

    config_path: str | None
    overrides: dict[str, Any] = field(default_factory=dict)
    agent_id: str | None = None  # with neither id, the CLI acts as the administrator
    user_id: str | None = None
    _settings: Settings | None = None
    _service: MemoryService | None = None

    @property
    def settings(self) -> Settings:
        from openclaw_tinmem.config import load_settings

        if self._settings is None:
            self._settings = load_settings(self.config_path, overrides=self.overrides)
        return self._settings

    @property
    def service(self) -> MemoryService:
        from openclaw_tinmem.service import MemoryService

        if self._service is None:
            self._service = MemoryService.from_settings(self.settings)
        return self._service

    @property
    def identity(self) -> Identity:
        from openclaw_tinmem.access import DEFAULT_AGENT_ID, Identity

        if self.agent_id is None and self.user_id is None:
            return Identity.administrator(via="cli")
        return Identity(agent_id=self.agent_id or DEFAULT_AGENT_ID, user_id=self.user_id, via="cli")

    @property
    def toolbox(self) -> Toolbox:
        from openclaw_tinmem.tools.toolbox import build_toolbox

        return build_toolbox(self.service, identity=self.identity)

    def matching(
        self,
        scopes: tuple[str, ...],
        categories: tuple[str, ...],
        before: datetime | None,
        tags: tuple[str, ...],
    ) -> list[Memory]:
        """Every memory the CLI's identity may read that matches the filter options (dates
        given on the command line are UTC)."""
        return self.service.list_memories(
            scopes=list(scopes) or None,
            categories=[Category(c) for c in categories] or None,
            before=before.replace(tzinfo=UTC) if before else None,
            tags=tags,
            limit=None,
            identity=self.identity,
        )

    def require_administrator(self, command: str) -> None:
        """Store-wide commands act on every scope: refuse them to an agent identity."""
        if self.agent_id is not None or self.user_id is not None:
            console().print(
                f"[red]error:[/red] '{command}' acts on the whole store and is for the "
                "administrator: run it without --agent-id/--user-id",
                highlight=False,
            )
            sys.exit(EXIT_INVALID)

    def close(self) -> None:
        if self._service is not None:
            self._service.close()


def shown(text: str) -> str:
    """Text given to the console, printed as it is: never read as markup or terminal codes."""
    from rich.markup import escape

    return escape(terminal_safe(text))


def say(text: str, *, err: bool = False) -> None:
    """A line for people that may hold stored text: printed without what a terminal would
    act on (escape sequences, bidi overrides: ``text.terminal_safe``)."""
    click.echo(terminal_safe(text), err=err)


def emit_json(data: Any) -> None:
    click.echo(json.dumps(data, ensure_ascii=False, default=str, indent=None))


@contextmanager
def friendly_errors() -> Iterator[None]:
    """Our errors, and a file that cannot be read as asked (a directory, a missing or
    unreadable file, bytes that are not UTF-8), become one clear line on stderr and exit
    code 2: never a traceback."""
    try:
        yield
    except TinmemError as error:
        console().print(f"[red]error:[/red] {shown(error.message)}", highlight=False)
        sys.exit(EXIT_INVALID)
    except UnicodeDecodeError as error:
        console().print(
            f"[red]error:[/red] the input is not UTF-8 text ({error.reason} at "
            f"byte {error.start}); save it as UTF-8",
            highlight=False,
        )
        sys.exit(EXIT_INVALID)
    except BrokenPipeError as error:
        if not _stdout_closed():
            console().print(f"[red]error:[/red] {shown(str(error))}", highlight=False)
            sys.exit(EXIT_INVALID)
        # the reader stopped reading (``tinmem export | head``): no error, nor one when
        # Python flushes standard output at exit
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
        sys.exit(EXIT_BROKEN_PIPE)
    except OSError as error:
        where = f"{error.filename}: " if error.filename else ""
        console().print(
            f"[red]error:[/red] {shown(where + str(error.strerror or error))}", highlight=False
        )
        sys.exit(EXIT_INVALID)
    except (click.ClickException, click.exceptions.Exit, click.Abort):
        raise  # click's own: usage errors and exits, reported by click
    except Exception as error:  # the store or a library failed: say what, not where in it
        logger.debug("command failed", exc_info=True)
        console().print(
            f"[red]error:[/red] {shown(describe_failure(error))} (run 'tinmem doctor' to check the "
            "store and the models)",
            highlight=False,
        )
        sys.exit(EXIT_FAILED)


def _stdout_closed() -> bool:
    """Whether standard output is a pipe whose reader has gone (``poll`` reports an error or
    a hang-up on its end, as Linux and the BSDs do; not where ``poll`` is missing)."""
    try:
        poller = select.poll()
        poller.register(sys.stdout.fileno(), select.POLLOUT)
        return any(events & (select.POLLERR | select.POLLHUP) for _, events in poller.poll(0))
    except (AttributeError, OSError, ValueError):
        return False


class FriendlyGroup(click.Group):
    """Every command under it reports failures through ``friendly_errors``."""

    def invoke(self, ctx: click.Context) -> Any:
        with friendly_errors():
            return super().invoke(ctx)


def progress_bar(description: str) -> Progress:
    """A bar for long work, its total given on its task."""
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeRemainingColumn,
    )

    return Progress(
        TextColumn(description),
        BarColumn(),
        MofNCompleteColumn(),
        TimeRemainingColumn(),
        console=console(),
        transient=False,
    )


def run_tool(
    state: CliState, name: str, arguments: dict[str, Any], as_json: bool, *, emit: bool = True
) -> dict[str, Any]:
    """Run a tool; print its JSON (or text) and exit 2 on an error result; returns its data.
    ``emit`` False leaves a successful result's JSON to the caller (which adds to it).

    As text, an error goes to stderr like every other error of the CLI; as JSON it stays on
    stdout, where a script reads the error object — also when the store cannot be opened.
    """
    if not as_json:
        with friendly_errors(), reported_here():
            result = state.toolbox.call(name, arguments)
    else:
        try:
            with reported_here():
                result = state.toolbox.call(name, arguments)
        except Exception as error:  # no toolbox: the store or a model could not be opened
            if isinstance(error, TinmemError):
                emit_json({"error": error.to_dict()})
                sys.exit(EXIT_INVALID)
            emit_json({"error": {"type": "internal_error", "message": describe_failure(error)}})
            sys.exit(EXIT_FAILED)
    if as_json:
        if emit or result.is_error:
            emit_json(result.data)
    elif result.is_error:  # one line, as every other error of the CLI
        message = str(result.data["error"].get("message") or result.text)
        console().print(f"[red]error:[/red] {shown(message)}", highlight=False, soft_wrap=True)
    else:
        say(result.text)
    if result.is_error:  # the input (2), or the store, a model or the system (1)
        internal = result.data["error"].get("type") == "internal_error"
        sys.exit(EXIT_FAILED if internal else EXIT_INVALID)
    data: dict[str, Any] = result.data
    return data


class _OneLine(logging.Handler):
    """What the library logs, one line each on the current stderr: warnings and errors, or
    with TINMEM_DEBUG every message and each traceback."""

    def emit(self, record: logging.LogRecord) -> None:
        try:
            line = f"{record.levelname.lower()}: {record.getMessage()}"
            if record.exc_info and debugging():
                line += "\n" + logging.Formatter().formatException(record.exc_info)
            sys.stderr.write(line + "\n")
        except Exception:
            self.handleError(record)


def debugging() -> bool:
    from openclaw_tinmem.config.loading import switched_on

    return switched_on(DEBUG_VARIABLE)


def _log_in_one_line() -> None:
    """Route the library's log to stderr as ``_OneLine`` for this command."""
    if not any(isinstance(handler, _OneLine) for handler in logger.handlers):
        logger.addHandler(_OneLine())
    level = logging.DEBUG if debugging() else logging.WARNING
    if debugging():  # otherwise the logger's level is left to whoever configured logging
        logger.setLevel(logging.DEBUG)
    for handler in logger.handlers:
        if isinstance(handler, _OneLine):
            handler.setLevel(level)


@contextmanager
def reported_here() -> Iterator[None]:
    """While the CLI reports a failure itself (a tool's error result), the library's log of
    it is not printed too: one line per error (all of it with TINMEM_DEBUG)."""
    handlers = [handler for handler in logger.handlers if isinstance(handler, _OneLine)]
    levels = [handler.level for handler in handlers]
    if not debugging():
        for handler in handlers:
            handler.setLevel(logging.CRITICAL + 1)
    try:
        yield
    finally:
        for handler, level in zip(handlers, levels, strict=True):
            handler.setLevel(level)


def not_blank(left_out: str) -> Callable[[click.Context, click.Parameter, str | None], str | None]:
    """A callback for an id option: given as an empty or blank string it is a mistake, not
    the default (``left_out`` says what leaving it out does)."""

    def check(context: click.Context, parameter: click.Parameter, value: str | None) -> str | None:
        if value is not None and not value.strip():
            raise click.BadParameter(f"must not be empty; leave the option out {left_out}")
        return value

    return check


@click.group(cls=FriendlyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.option(
    "--config",
    "config_path",
    type=click.Path(dir_okay=False),
    help=f"Config file (default: $TINMEM_CONFIG or {DEFAULT_CONFIG_PATH}).",
)
@click.option("--db-path", help="Override the store location (TINMEM_DB_PATH).")
@click.option(
    "--agent-id",
    callback=not_blank("to act as the administrator"),
    help="Act as this agent: see and change only the scopes it may (default: administrator).",
)
@click.option(
    "--user-id",
    callback=not_blank("to act as the administrator"),
    help="The user the agent acts for (with --agent-id; default none).",
)
@click.version_option(package_name="openclaw-tinmem")
@click.pass_context
def main(
    context: click.Context,
    config_path: str | None,
    db_path: str | None,
    agent_id: str | None,
    user_id: str | None,
) -> None:
    """openclaw-tinmem: persistent memory for AI agents.

    Memories live in an embedded LanceDB store and are found by hybrid (vector + full-text)
    search. Every command takes --help.

    The CLI acts as the administrator: it reads and changes every scope, and a search that
    names no scope searches them all. With --agent-id (and --user-id) it acts as that agent
    instead, with that agent's rights (read_scopes, write_scopes, agent_access).
    """
    overrides = {"db_path": db_path} if db_path else {}
    _log_in_one_line()
    state = CliState(config_path, overrides, agent_id, user_id)
    context.obj = state
    context.call_on_close(state.close)
