// The tinmem plugin for OpenClaw: automatic recall and capture, and the memory tools, served
// by the openclaw-tinmem Python package. The gateway starts the Python side once
// (`tinmem bridge`, JSON lines over stdin/stdout) and forwards hooks and tool calls to it.
//
// It fails open: if the Python side is missing, slow or crashes, the turn goes on without
// memory, and each kind of failure is logged once, not on every turn.
import { readFileSync } from "node:fs";
import { BridgeProcess } from "./bridge-process.js";

const TOOLS = JSON.parse(readFileSync(new URL("./tools.json", import.meta.url), "utf8"));
const DEFAULTS = {
  command: ["tinmem", "bridge"],
  env: {},
  recallTimeoutMs: 3000,
  toolTimeoutMs: 15000,
  toolSets: ["tinmem", "workspace"],
  injectAs: "prependContext",
};
const SESSION_HOOKS = ["session_start", "session_end", "before_reset", "before_compaction"];

// The ids OpenClaw gives a hook or a tool, as the Python side reads them: who and where (a
// tool's requesterSenderId and messageChannel, a hook's senderId and channelId) and what
// started the run (trigger: "user", "heartbeat", "cron"...), so scheduled runs are not captured.
function identity(ctx) {
  const keys = [
    "agentId", "sessionId", "sessionKey", "runId", "requesterSenderId", "messageChannel",
    "senderId", "channelId", "messageProvider", "trigger",
  ];
  return Object.fromEntries(keys.filter((key) => ctx?.[key]).map((key) => [key, ctx[key]]));
}

function register(api) {
  const config = { ...DEFAULTS, ...(api.pluginConfig ?? {}) };
  const bridge = new BridgeProcess({
    command: config.command,
    env: config.env,
    logger: api.logger ?? console,
  });

  api.on(
    "before_prompt_build",
    async (event, ctx) => {
      const result = await bridge.request(
        "hook",
        { hook: "before_prompt_build", event: { prompt: event?.prompt, messages: event?.messages }, ctx: identity(ctx) },
        config.recallTimeoutMs,
      );
      if (!result?.prependContext) return undefined;
      return { [config.injectAs]: result.prependContext };
    },
    { timeoutMs: config.recallTimeoutMs + 500 },
  );

  // Capture is the Python side's background work: the hook returns once it is handed over.
  api.on("agent_end", (event, ctx) => {
    bridge.send("hook", {
      hook: "agent_end",
      event: {
        messages: event?.messages,
        success: event?.success,
        error: event?.error,
        durationMs: event?.durationMs,
        runId: event?.runId,
      },
      ctx: identity(ctx),
    });
  });

  for (const hook of SESSION_HOOKS) {
    api.on(hook, (event, ctx) => {
      bridge.send("hook", {
        hook,
        event: { sessionId: event?.sessionId ?? ctx?.sessionId, messages: event?.messages, reason: event?.reason },
        ctx: identity(ctx),
      });
    });
  }

  api.on("gateway_stop", () => bridge.close());

  for (const tool of TOOLS.filter((entry) => config.toolSets.includes(entry.set))) {
    api.registerTool(
      (toolContext) => ({
        name: tool.name,
        label: tool.name,
        description: tool.description,
        parameters: tool.parameters,
        async execute(_toolCallId, params) {
          const result = await bridge.request(
            "call_tool",
            { name: tool.name, arguments: params ?? {}, ctx: identity(toolContext) },
            config.toolTimeoutMs,
          );
          const data = result?.data ?? {
            error: { type: "unavailable", message: "tinmem memory is unavailable right now" },
          };
          return { content: [{ type: "text", text: JSON.stringify(data) }], details: data };
        },
      }),
      { name: tool.name },
    );
  }
}

export default {
  id: "tinmem",
  name: "tinmem memory",
  description: "Persistent memory for agents: recall, capture and memory tools (openclaw-tinmem).",
  kind: "memory",
  register,
};
