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
