// BridgeProcess against real child processes: an answering one, a silent one and one that
// dies at once. Run with `node --test integrations/openclaw/test/*.test.js` (pytest runs it).
import assert from "node:assert/strict";
import { test } from "node:test";
import { BridgeProcess } from "../bridge-process.js";

const PYTHON = process.env.PYTHON ?? "python3";
const ANSWERING = `
import json, sys
for line in sys.stdin:
    request = json.loads(line)
    print(json.dumps({"id": request["id"], "result": {"echo": request["params"]}}), flush=True)
`;
const SILENT = "import sys\nfor line in sys.stdin: pass\n";

// The child is unref'd: a timer keeps the test's event loop running while it waits.
async function exitOf(child, timeoutMs = 5000) {
  const until = Date.now() + timeoutMs;
  while (child.exitCode === null && child.signalCode === null && Date.now() < until) {
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return child.signalCode ?? child.exitCode;
}

function recorder() {
  const warnings = [];
  return { warnings, logger: { warn: (message) => warnings.push(message) } };
}

test("a request gets the Python side's answer", async () => {
  const { logger } = recorder();
  const bridge = new BridgeProcess({ command: [PYTHON, "-c", ANSWERING], logger });
  assert.deepEqual(await bridge.request("ping", { n: 1 }, 5000), { echo: { n: 1 } });
  const answers = await Promise.all([1, 2, 3].map((n) => bridge.request("ping", { n }, 5000)));
  assert.deepEqual(answers.map((answer) => answer.echo.n), [1, 2, 3]);
  bridge.close();
});

test("a slow Python side times out to undefined, logged once", async () => {
  const { warnings, logger } = recorder();
  const bridge = new BridgeProcess({ command: [PYTHON, "-c", SILENT], logger });
  assert.equal(await bridge.request("hook", {}, 200), undefined);
  assert.equal(await bridge.request("hook", {}, 200), undefined);
  assert.equal(warnings.filter((warning) => warning.includes("took longer")).length, 1);
  bridge.close();
});

test("a missing or crashing Python side gives undefined, logged once, and is not retried at once", async () => {
  const { warnings, logger } = recorder();
  const missing = new BridgeProcess({ command: ["/nonexistent/tinmem", "bridge"], logger });
  assert.equal(await missing.request("hook", {}, 2000), undefined);
  assert.equal(await missing.request("hook", {}, 2000), undefined);
  assert.equal(warnings.filter((warning) => warning.includes("could not start")).length, 1);

  const dying = new BridgeProcess({ command: [PYTHON, "-c", "import sys; sys.exit(3)"], logger });
  assert.equal(await dying.request("hook", {}, 5000), undefined);
  assert.equal(dying.ensure(), null); // within the restart delay: no new process per turn
  assert.equal(warnings.filter((warning) => warning.includes("exited")).length, 1);
});

test("a line that is JSON but no answer (null, a number) is passed over", async () => {
  const { logger } = recorder();
  const noisy = `
import json, sys
print("null", flush=True)
print("42", flush=True)
for line in sys.stdin:
    request = json.loads(line)
    print("null", flush=True)
    print(json.dumps({"id": request["id"], "result": {"ok": True}}), flush=True)
`;
  const bridge = new BridgeProcess({ command: [PYTHON, "-c", noisy], logger });
  assert.deepEqual(await bridge.request("ping", {}, 5000), { ok: true });
  bridge.close();
});

test("the Python side's error reaches the asker; a request JSON cannot hold still goes", async () => {
  const { logger } = recorder();
  const erring = `
import json, sys
for line in sys.stdin:
    request = json.loads(line)
    if request["method"] == "fail":
        print(json.dumps({"id": request["id"], "error": {"type": "unknown_tool", "message": "no tool"}}), flush=True)
    else:
        print(json.dumps({"id": request["id"], "result": request["params"]}), flush=True)
`;
  const bridge = new BridgeProcess({ command: [PYTHON, "-c", erring], logger });
  assert.deepEqual(await bridge.ask("fail", {}, 5000), { error: { type: "unknown_tool", message: "no tool" } });
  assert.equal(await bridge.request("fail", {}, 5000), undefined);
  const looped = { role: "toolResult", details: { size: 10n } };
  looped.details.self = looped;
  const pid = bridge.child.pid;
  assert.deepEqual(await bridge.request("echo", { message: looped }, 5000), {
    message: { role: "toolResult", details: { size: "10" } },
  });
  assert.equal(bridge.child.pid, pid); // the same process: nothing was dropped
  bridge.close();
});

test("a hung Python side is stopped and reported, and its recovery is told", async () => {
  const { warnings, logger } = recorder();
  const bridge = new BridgeProcess({ command: [PYTHON, "-c", SILENT], logger });
  const told = [];
  bridge.watch((error) => told.push(error ? error.message : "recovered"));
  const child = bridge.ensure();
  for (let n = 0; n < 5; n += 1) assert.equal(await bridge.request("hook", {}, 100), undefined);
  await exitOf(child); // stopped, not left beside a new one
  assert.equal(bridge.child, null);
  assert.match(told[0], /answered none of 5 requests/);
  assert.equal(warnings.filter((warning) => warning.includes("answered none")).length, 1);
  bridge.failedAt = 0; // as if the restart delay had passed
  bridge.command = [PYTHON, "-c", ANSWERING];
  assert.deepEqual(await bridge.request("ping", { n: 1 }, 5000), { echo: { n: 1 } });
  assert.deepEqual(told.slice(1), ["recovered"]);
  bridge.close();
});
