// The tinmem plugin for OpenClaw: automatic recall and capture, the memory tools, OpenClaw's
// memory capability and an `openclaw tinmem` command, served by the openclaw-tinmem Python
// package. The Python side (`tinmem bridge`, JSON lines over stdin/stdout) is one process
// per gateway (or `openclaw agent --local` run), shared by the plugin's instances, started
// when the gateway or the agent run starts so that its first recall finds it warm.
//
// It fails open: if the Python side is missing, slow or crashes, the turn goes on without
// memory, and each kind of failure is logged once, not on every turn.
import { readFileSync } from "node:fs";
import { acquireBridge } from "./bridge-process.js";
import { registerTinmemCli } from "./cli.js";
import { memoryCapability } from "./memory-capability.js";
import { MEMORY_CORE_TOOL_NAMES, memoryCoreLoadsBeside } from "./memory-core.js";

const TOOLS = JSON.parse(readFileSync(new URL("./tools.json", import.meta.url), "utf8"));
const DEFAULTS = {
  command: ["tinmem", "bridge"],
  env: {},
  recallTimeoutMs: 3000,
  toolTimeoutMs: 15000,
  toolSets: ["tinmem", "workspace"],
  injectAs: "prependContext",
};
const UNAVAILABLE = { error: { type: "unavailable", message: "tinmem memory is unavailable right now" } };
const SESSION_HOOKS = ["session_start", "session_end", "before_reset", "before_compaction"];
const WARNED = Symbol.for("openclaw-tinmem.warned");

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

// Once per process (OpenClaw registers the plugin several times in one).
function warnOnce(logger, kind, message) {
  const warned = (globalThis[WARNED] ??= new Set());
  if (warned.has(kind)) return;
  warned.add(kind);
  logger.warn?.(message);
}

// OpenClaw drops a non-bundled plugin's conversation hooks (before_prompt_build, agent_end)
// unless the operator allows them, and says so only in `plugins inspect --runtime`.
function warnIfHooksBlocked(api) {
  const hooks = api.config?.plugins?.entries?.[api.id ?? "tinmem"]?.hooks ?? {};
  if (hooks.allowConversationAccess === true) return;
  warnOnce(
    api.logger ?? console,
    "hooks-blocked",
    "tinmem: automatic memory is OFF: OpenClaw blocks this plugin's before_prompt_build and " +
      "agent_end hooks, so nothing is recalled before a turn or captured after it (the memory " +
      "tools still work). Allow them with: openclaw config set " +
      `plugins.entries.${api.id ?? "tinmem"}.hooks.allowConversationAccess true`,
  );
}

function registerHooks(api, bridge, config) {
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
}

// The tools this plugin offers: those of its tool sets, less the names memory-core takes where
// OpenClaw loads it beside tinmem (memory-core.js).
function offeredTools(api, config) {
  const beside = memoryCoreLoadsBeside(api.config, api.id ?? "tinmem");
  return TOOLS.filter((tool) => config.toolSets.includes(tool.set))
    .filter((tool) => !(beside && MEMORY_CORE_TOOL_NAMES.has(tool.name)));
}

// Tools stay in the model's direct tool list under OpenClaw's default Tool Search
// (catalogMode "direct-only"): memory is consulted on most turns, not searched for.
function registerTools(api, bridge, config, tools) {
  for (const tool of tools) {
    api.registerTool(
      (toolContext) => ({
        name: tool.name,
        label: tool.name,
        description: tool.description,
        parameters: tool.parameters,
        catalogMode: "direct-only",
        async execute(_toolCallId, params) {
          const reply = await bridge.ask(
            "call_tool",
            { name: tool.name, arguments: params ?? {}, ctx: identity(toolContext) },
            config.toolTimeoutMs,
          );
          // The Python side's own error (a tool the configuration leaves out, a broken
          // setting) is the agent's to read; no answer at all is "unavailable".
          const data = reply?.result?.data ?? (reply?.error ? { error: reply.error } : UNAVAILABLE);
          return { content: [{ type: "text", text: JSON.stringify(data) }], details: data };
        },
      }),
      { name: tool.name },
    );
  }
}

// The gateway's service: the Python side starts with the gateway (so the first turn's recall
// finds it warm) and its health shows in `openclaw health`: a failure when it does not answer
// the start's ping, crashes or hangs later, cleared when it answers again. It stops when the
// plugin is replaced on a reload or the gateway stops.
function registerBridgeService(api, config) {
  let lease = null;
  let unwatch = null;
  api.registerService({
    id: "tinmem-bridge",
    start(ctx) {
      lease = acquireBridge({ command: config.command, env: config.env, logger: api.logger ?? console });
      const health = ctx?.serviceHealth;
      unwatch = lease.bridge.watch((error) => (error ? health?.reportFailure?.(error) : health?.clearFailure?.()));
      const bridge = lease.bridge;
      bridge.request("ping", {}, 60_000).then((answer) => {
        if (answer) health?.clearFailure?.();
        else bridge.unanswered(`the tinmem Python side (${config.command.join(" ")}) is not answering`);
      });
    },
    stop() {
      unwatch?.();
      unwatch = null;
      lease?.release();
      lease = null;
    },
  });
}

function register(api) {
  const config = { ...DEFAULTS, ...(api.pluginConfig ?? {}) };
  registerTinmemCli(api, config);
  if (api.registrationMode === "cli-metadata") return; // only the command line is wanted

  const lease = acquireBridge({ command: config.command, env: config.env, logger: api.logger ?? console });
  api.lifecycle?.onDispose?.(() => lease.release());
  const bridge = lease.bridge;
  // "full" is the gateway's root registry or an `openclaw agent --local` run: a turn is
  // coming, so the Python side starts loading now, not at the turn's recall. (Other modes are
  // the CLI's inspections, which never run a turn.)
  if (api.registrationMode === "full") bridge.ensure();

  warnIfHooksBlocked(api);
  registerHooks(api, bridge, config);
  const tools = offeredTools(api, config);
  registerTools(api, bridge, config, tools);
  registerBridgeService(api, config);
  api.registerMemoryCapability?.(memoryCapability(bridge, new Set(tools.map((tool) => tool.name))));
}

export default {
  id: "tinmem",
  name: "tinmem memory",
  description: "Persistent memory for agents: recall, capture and memory tools (openclaw-tinmem).",
  kind: "memory",
  register,
};
