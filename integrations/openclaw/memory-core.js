// OpenClaw's own memory plugin, memory-core, and the tool names it shares with tinmem.
//
// OpenClaw loads memory-core beside the memory slot's plugin as its "dreaming sidecar" unless
// that plugin's configuration says `dreaming.enabled: false`. tinmem's manifest makes false the
// default, and the gateway and agent runs apply it; but some of OpenClaw's paths (doctor's
// inspection of the tools) read the configuration as written, without a plugin's defaults, and
// there memory-core comes along. Wherever it does, both would offer `memory_search` and
// OpenClaw would report a tool-name conflict, so tinmem leaves memory-core its names there:
// `memory_search` is then memory-core's search of the workspace memory files, and
// `memory_recall` is tinmem's.

export const MEMORY_CORE_TOOL_NAMES = new Set(["memory_search", "memory_get"]);

// OpenClaw's reading of a boolean setting: a boolean, or "true"/"false" in any case.
function parseBoolean(value) {
  if (typeof value === "boolean") return value;
  if (typeof value !== "string") return undefined;
  const word = value.trim().toLowerCase();
  return word === "true" ? true : word === "false" ? false : undefined;
}

// Whether OpenClaw, given this configuration (the root one, as the plugin's api.config has it),
// loads memory-core beside the plugin `pluginId` holding the memory slot: OpenClaw 2026.9.6's
// rule (its dreaming default is on).
export function memoryCoreLoadsBeside(config, pluginId) {
  const plugins = config?.plugins ?? {};
  if (plugins.enabled === false) return false;
  const slot = plugins.slots?.memory;
  if (typeof slot !== "string" || slot.trim().toLowerCase() !== pluginId) return false;
  const entries = plugins.entries ?? {};
  const denied = Array.isArray(plugins.deny) && plugins.deny.includes("memory-core");
  if (denied || entries["memory-core"]?.enabled === false) return false;
  return parseBoolean(entries[slot]?.config?.dreaming?.enabled) ?? true;
}
