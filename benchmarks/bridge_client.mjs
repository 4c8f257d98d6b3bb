// Times the OpenClaw plugin's bridge from the Node side: the same BridgeProcess the plugin
// uses, the same requests its hooks send. Prints one JSON object of millisecond timings.
//   node benchmarks/bridge_client.mjs <questions.json> <command...>
import { readFileSync } from "node:fs";
import { BridgeProcess } from "../integrations/openclaw/bridge-process.js";

const [questionsPath, ...command] = process.argv.slice(2);
const questions = JSON.parse(readFileSync(questionsPath, "utf8"));
const bridge = new BridgeProcess({ command, logger: console });
const ctx = { agentId: "bench", sessionId: "bench-session", sessionKey: "agent:bench:bench-session" };

async function timed(method, params) {
  const started = performance.now();
  const result = await bridge.request(method, params, 60_000);
  if (result === undefined) throw new Error(`${method} failed`);
  return performance.now() - started;
}

await timed("ping", {});
for (const question of questions.slice(0, 5)) {  // warm up as the in-process run does
  await timed("hook", { hook: "before_prompt_build", event: { prompt: `${question} warm` }, ctx });
}
const timings = { before_prompt_build: [], agent_end: [] };
for (const question of questions) {
  timings.before_prompt_build.push(
    await timed("hook", { hook: "before_prompt_build", event: { prompt: question }, ctx }),
  );
  const messages = [
    { role: "user", content: `${question} I really prefer writing things down.` },
    { role: "assistant", content: "Noted." },
  ];
  timings.agent_end.push(await timed("hook", { hook: "agent_end", event: { messages }, ctx }));
}
bridge.close();
console.log(JSON.stringify(timings));
