"""Agent-facing commands: demo, bridge, mcp, tool."""

from __future__ import annotations

import json
import re
import sys

import click

from openclaw_tinmem.cli.app import (
    EXIT_INVALID,
    CliState,
    emit_json,
    friendly_errors,
    main,
    not_blank,
    run_tool,
)


@main.command()
@click.option(
    "--dir",
    "directory",
    type=click.Path(file_okay=False),
    help="Keep the demo store here (default: a temporary directory, removed at the end).",
)
@click.pass_obj
def demo(state: CliState, directory: str | None) -> None:
    """Run a scripted two-session conversation through the reference host and the plugin."""
    import shutil
    import tempfile

    from openclaw_tinmem.plugin.demo import demo_settings, run_demo

    root = directory or tempfile.mkdtemp(prefix="tinmem-demo-")
    try:
        with friendly_errors():
            run_demo(demo_settings(state.settings, root), click.echo)
    finally:  # a store of its own is gone with it; one kept with --dir stays
        if not directory:
            shutil.rmtree(root, ignore_errors=True)


@main.command()
@click.pass_obj
def bridge(state: CliState) -> None:
    """Serve the plugin's hooks and tools as JSON lines on stdin/stdout, for a gateway in
    another language (the OpenClaw plugin in integrations/openclaw starts it).

    Each request is a line {"id", "method", "params"}; methods: hook, tools, call_tool,
    ping. Logs go to stderr. End of input flushes captures and exits.
    """
    from openclaw_tinmem.plugin.bridge import run
    from openclaw_tinmem.process.allocator import limit_arenas

    limit_arenas()  # a process that runs as long as the gateway does
    with friendly_errors():
        run(state.settings)


FOR_THE_DEFAULT = not_blank("for the default")


def refuse_ids_beside_admin(admin: bool, *ids: str | None) -> None:
    """``--admin`` acts for every scope: an agent or user id given beside it is a mistake."""
    if admin and any(ids):
        raise click.UsageError(
            "--admin acts for every scope: give it without --agent-id and --user-id"
        )


@main.group(invoke_without_command=True)
@click.option(
    "--http",
    "http_port",
    type=click.IntRange(0, 65535),
    default=None,
    help="Serve streamable HTTP on HOST:PORT instead of stdio.",
)
@click.option(
    "--host",
    default="127.0.0.1",
    show_default=True,
    help="Address to bind with --http; anything but loopback needs access_tokens.",
)
@click.option(
    "--agent-id",
    "mcp_agent_id",
    callback=FOR_THE_DEFAULT,
    help="The agent the client is (default: main).",
)
@click.option(
    "--user-id", "mcp_user_id", callback=FOR_THE_DEFAULT, help="The user that agent acts for."
)
@click.option("--admin", is_flag=True, help="Act as the administrator: every scope.")
@click.pass_context
def mcp(
    context: click.Context,
    http_port: int | None,
    host: str,
    mcp_agent_id: str | None,
    mcp_user_id: str | None,
    admin: bool,
) -> None:
    """Serve every enabled tool over MCP (stdio by default) for any MCP client.

    Calls act as the agent given by --agent-id/--user-id (default: agent main), or as the
    administrator with --admin. Over --http with access_tokens configured, each request acts
    as the identity of its bearer token instead, and a request without a known token is
    refused.
    """
    if context.invoked_subcommand is not None:
        return
    from openclaw_tinmem.access import DEFAULT_AGENT_ID, Identity
    from openclaw_tinmem.process.allocator import limit_arenas
    from openclaw_tinmem.tools.mcp import run

    limit_arenas()  # a server that runs for as long as its client does

    state: CliState = context.obj
    refuse_ids_beside_admin(admin, mcp_agent_id, mcp_user_id, state.agent_id, state.user_id)
    agent_id = mcp_agent_id or state.agent_id or DEFAULT_AGENT_ID
    user_id = mcp_user_id or state.user_id
    identity = (
        Identity.administrator(via="mcp")
        if admin
        else Identity(agent_id=agent_id, user_id=user_id, via="mcp")
    )
    with friendly_errors():
        run(state.settings, identity=identity, http_port=http_port, host=host)


def _bare_key(context: click.Context, parameter: click.Parameter, value: str) -> str:
    """A name that TOML reads as one key, as printed in [tinmem.access_tokens.NAME]."""
    if not re.fullmatch(r"[A-Za-z0-9_-]+", value):
        raise click.BadParameter("use letters, digits, '_' and '-' only")
    return value


@mcp.command("token")
@click.option(
    "--name",
    default="agent",
    show_default=True,
    callback=_bare_key,
    help="The token's name in config: letters, digits, '_' and '-'.",
)
@click.option(
    "--agent-id",
    "token_agent_id",
    callback=FOR_THE_DEFAULT,
    help="The agent the token stands for (default: main).",
)
@click.option(
    "--user-id", "token_user_id", callback=FOR_THE_DEFAULT, help="The user that agent acts for."
)
@click.option("--admin", is_flag=True, help="The token acts as the administrator.")
def mcp_token(
    name: str, token_agent_id: str | None, token_user_id: str | None, admin: bool
) -> None:
    """Make a bearer token for the MCP HTTP server: prints the token once, and the config
    block that stores only its sha256."""
    from openclaw_tinmem.access import DEFAULT_AGENT_ID
    from openclaw_tinmem.tools.mcp import new_token

    refuse_ids_beside_admin(admin, token_agent_id, token_user_id)
    token_agent_id = token_agent_id or DEFAULT_AGENT_ID

    token, digest = new_token()
    lines = [
        f"[tinmem.access_tokens.{name}]",
        f'token_sha256 = "{digest}"',
        f"agent_id = {json.dumps(token_agent_id, ensure_ascii=False)}",  # TOML reads JSON strings
    ]
    if token_user_id:
        lines.append(f"user_id = {json.dumps(token_user_id, ensure_ascii=False)}")
    if admin:
        lines.append("admin = true")
    click.echo(f"token (give it to the client, it is not stored): {token}", err=True)
    click.echo("\n".join(lines))


@main.command()
@click.argument("name")
@click.argument("arguments", default="{}")
@click.pass_obj
def tool(state: CliState, name: str, arguments: str) -> None:
    """Run one tool call: prints exactly one JSON object; exit 2 on invalid input or missing id."""
    try:
        parsed = json.loads(arguments)
    except json.JSONDecodeError as error:
        emit_json(
            {
                "error": {
                    "type": "invalid_argument",
                    "message": f"ARGUMENTS is not valid JSON: {error.msg}",
                    "field": None,
                }
            }
        )
        sys.exit(EXIT_INVALID)
    run_tool(state, name, parsed, as_json=True)


@main.command()
@click.option(
    "--port",
    type=click.IntRange(0, 65535),
    default=0,
    help="Port on 127.0.0.1 (default: a free one).",
)
@click.pass_obj
def ui(state: CliState, port: int) -> None:
    """Serve the memory browser on 127.0.0.1: search and filter memories, open one to see its
    levels and history, edit, forget and restore it; a chart per category and week.

    The printed URL carries a random token; requests without it are refused. The browser
    acts as the CLI does: the administrator, or the agent of --agent-id/--user-id."""
    import dataclasses

    from openclaw_tinmem.process.allocator import limit_arenas
    from openclaw_tinmem.serving import address, listening_socket, serve
    from openclaw_tinmem.ui.app import build_app

    limit_arenas()  # before the store's threads start
    # history names the browser as the front end of its changes; errors reach the user as
    # every command's do (FriendlyGroup)
    app = build_app(state.service, dataclasses.replace(state.identity, via="ui"))
    listening = listening_socket("127.0.0.1", port, "--port")
    click.echo(f"Memory browser: {address(listening)}/?token={app.state.token}")
    serve(app, listening)
