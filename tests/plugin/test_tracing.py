import io
import subprocess
import sys

import pluggy
import pytest

from openclaw_tinmem.events import HookContext, PromptBuildEvent, PromptContext
from openclaw_tinmem.plugin.hookspecs import hookimpl, make_plugin_manager
from openclaw_tinmem.plugin.tracing import trace_hook_calls, tracing_requested


class Greeter:
    @hookimpl
    def before_prompt_build(self, event: PromptBuildEvent, ctx: HookContext) -> PromptContext:
        return PromptContext(prepend_context=f"hello {ctx.agent_id}")


class Broken:
    @hookimpl
    def session_start(self) -> None:
        raise RuntimeError("boom")


def test_every_hook_call_is_traced_with_its_plugins_arguments_and_result() -> None:
    manager = make_plugin_manager()
    manager.register(Greeter(), name="greeter")
    stream = io.StringIO()
    trace_hook_calls(manager, stream)
    manager.hook.before_prompt_build(event=PromptBuildEvent("hi"), ctx=HookContext(agent_id="a"))
    first, second = stream.getvalue().splitlines()
    assert first.startswith("[tinmem trace] before_prompt_build -> greeter (event=")
    assert "ctx=HookContext(agent_id='a'" in first
    assert "returned [PromptContext(" in second and second.endswith(" ms")


def test_a_failing_hook_is_traced_as_raised() -> None:
    manager = make_plugin_manager()
    manager.register(Broken(), name="broken")
    stream = io.StringIO()
    trace_hook_calls(manager, stream)
    with pytest.raises(RuntimeError):
        manager.hook.session_start(event=None, ctx=None)
    assert "session_start raised RuntimeError('boom')" in stream.getvalue()


def test_the_variable_switches_tracing_on_for_every_plugin_manager() -> None:
    assert tracing_requested({"TINMEM_TRACE": "1"})
    assert not tracing_requested({"TINMEM_TRACE": "0"}) and not tracing_requested({})
    script = (
        "from openclaw_tinmem.plugin.host import load_plugins\n"
        "from openclaw_tinmem.plugin.hookspecs import hookimpl\n"
        "class P:\n"
        "    @hookimpl\n"
        "    def register_tools(self, register): pass\n"
        "load_plugins([P()], entry_points=False).hook.register_tools(register=print)\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        env={"TINMEM_TRACE": "1", "PATH": ""},
    )
    assert result.returncode == 0, result.stderr
    assert "[tinmem trace] register_tools ->" in result.stderr
    assert isinstance(pluggy.PluginManager("x"), pluggy.PluginManager)
