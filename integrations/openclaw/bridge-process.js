// The Python side of the tinmem plugin: one `tinmem bridge` process, JSON lines both ways,
// shared by every instance of the plugin in a Node process (`acquireBridge`).
//
// Requests never reject: a missing, slow or crashed process gives `undefined`, and each kind
// of failure is logged once until the Python side answers again. A process that died, or
// that answered nothing to HUNG_AFTER_TIMEOUTS requests in a row, is (stopped and) started
// again on a later request, at most once every RESTART_DELAY_MS. `watch` tells a listener
// of each failure and recovery (the gateway service's health). The process and its pipes do
// not keep Node running: a one-shot `openclaw agent --local` exits when its turn is done,
// and the Python side then reads the end of its input, flushes its captures and exits.
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";

const RESTART_DELAY_MS = 30_000;
const HUNG_AFTER_TIMEOUTS = 5;
// After its input ends, how long the Python side may take to flush before it is stopped.
const CLOSE_GRACE_MS = 15_000;
// How long a bridge no instance holds stays up: a plugin reload lets go of it and takes it
// again within this time, and keeps the warm process.
const LINGER_MS = 10_000;
const SHARED = Symbol.for("openclaw-tinmem.bridges");

export class BridgeProcess {
  constructor({ command, env = {}, logger = console }) {
    this.command = command;
    this.env = env;
    this.logger = logger;
    this.child = null;
    this.nextId = 1;
    this.pending = new Map();
    this.failedAt = 0;
    this.warned = new Set();
    this.closed = false;
    this.timeoutsInARow = 0;
    this.failing = false;
    this.listeners = new Set();
  }

  warnOnce(kind, message) {
    if (this.warned.has(kind)) return;
    this.warned.add(kind);
    this.logger.warn?.(`tinmem: ${message} (the agent goes on without memory; logged once)`);
  }

  // `listener(error)` on each failure, `listener(null)` when the Python side answers again;
  // returns the function that stops the watch.
  watch(listener) {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  // The Python side did not answer what it had to (the gateway's start-up ping): a failure
  // for the listeners until it answers again.
  unanswered(message) {
    this.failing = true;
    this.tell(new Error(message));
  }

  tell(error) {
    for (const listener of this.listeners) {
      try {
        listener(error);
      } catch {
        // a listener's failure is not the bridge's
      }
    }
  }

  ensure() {
    if (this.child) return this.child;
    if (this.closed) return null;
    if (this.failedAt && Date.now() - this.failedAt < RESTART_DELAY_MS) return null;
    const [program, ...args] = this.command;
    let child;
    try {
      child = spawn(program, args, {
        env: { ...process.env, ...this.env },
        stdio: ["pipe", "pipe", "inherit"],
      });
    } catch (error) {
      this.failed("spawn", couldNotStart(program, error));
      return null;
    }
    child.on("error", (error) => this.failed("spawn", couldNotStart(program, error)));
    child.on("exit", (code, signal) => {
      if (this.child === child) this.failed("exit", `the Python side exited (${signal ?? code})`);
    });
    child.stdin.on("error", () => {}); // a dead process: reported by "exit"
    createInterface({ input: child.stdout }).on("line", (line) => this.receive(line));
    child.unref();
    child.stdout.unref?.();
    child.stdin.unref?.();
    this.child = child;
    return child;
  }

  // The process is gone, or of no use: it is stopped if it still runs (a second one is never
  // started beside it), and what waited for it gets `undefined`.
  failed(kind, message) {
    const child = this.child;
    this.child = null;
    this.failedAt = Date.now();
    this.timeoutsInARow = 0;
    stop(child);
    this.warnOnce(kind, message);
    this.failing = true;
    this.tell(new Error(message));
    for (const { resolve, timer } of this.pending.values()) {
      clearTimeout(timer);
      resolve(undefined);
    }
    this.pending.clear();
  }

  receive(line) {
    let reply;
    try {
      reply = JSON.parse(line);
    } catch {
      return;
    }
    if (!reply || typeof reply !== "object") return; // `null`, `42`: not an answer
    this.timeoutsInARow = 0; // it answers, if late: slow, not hung
    if (this.failing) {
      this.failing = false;
      this.warned.clear(); // a later failure is logged again
      this.tell(null);
    }
    const waiting = this.pending.get(reply.id);
    if (!waiting) return;
    this.pending.delete(reply.id);
    clearTimeout(waiting.timer);
    const error = reply.error && typeof reply.error === "object" ? reply.error : null;
    if (reply.error) {
      const kind = error?.type ?? "error";
      this.warnOnce(`error:${kind}`, `${kind}: ${error?.message ?? String(reply.error)}`);
    }
    waiting.resolve(reply.error ? { error: error ?? { type: "error", message: String(reply.error) } } : { result: reply.result });
  }

  write(message) {
    const line = jsonLine(message);
    if (line === null) {
      this.warnOnce("serialize", `a ${message.method} request could not be written as JSON`);
      return false;
    }
    const child = this.ensure();
    if (!child) return false;
    try {
      child.stdin.write(line);
      return true;
    } catch (error) {
      this.failed("write", `could not reach the Python side: ${error.message}`);
      return false;
    }
  }

  // Ask and wait at most `timeoutMs`: `{ result }` or `{ error: { type, message } }` as the
  // Python side answered, `undefined` on any other failure. The request carries its deadline:
  // the Python side does not start it once no one waits for it.
  ask(method, params, timeoutMs) {
    const id = this.nextId++;
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        this.warnOnce(`timeout:${method}`, `${method} took longer than ${timeoutMs} ms`);
        resolve(undefined);
        this.timeoutsInARow += 1;
        if (this.timeoutsInARow >= HUNG_AFTER_TIMEOUTS) {
          this.failed("hung", `the Python side answered none of ${HUNG_AFTER_TIMEOUTS} requests in a row`);
        }
      }, timeoutMs);
      this.pending.set(id, { resolve, timer });
      if (!this.write({ id, method, params, deadline: Date.now() + timeoutMs })) {
        clearTimeout(timer);
        this.pending.delete(id);
        resolve(undefined);
      }
    });
  }

  // Ask and wait at most `timeoutMs`: the result, `undefined` on any failure.
  async request(method, params, timeoutMs) {
    return (await this.ask(method, params, timeoutMs))?.result;
  }

  // Hand over without waiting for the answer (capture, session events).
  send(method, params) {
    this.write({ id: this.nextId++, method, params });
  }

  // End the Python side's input: it flushes its captures and exits. A closed bridge starts
  // no new process; a late request gets `undefined`.
  // A Python side still busy CLOSE_GRACE_MS later is stopped, if Node still runs then.
  close() {
    this.closed = true;
    const child = this.child;
    this.child = null;
    if (!child) return;
    child.stdin.end();
    const stopping = setTimeout(() => stop(child), CLOSE_GRACE_MS);
    stopping.unref?.();
  }
}

function stop(child) {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  try {
    child.kill("SIGTERM");
  } catch {
    // already gone
  }
}

function couldNotStart(program, error) {
  const hint =
    error.code === "ENOENT"
      ? "; install openclaw-tinmem where the gateway's PATH finds `tinmem`, or set " +
        'plugins.entries.tinmem.config.command to its full path (["/path/to/tinmem", "bridge"])'
      : "";
  return `could not start ${program}: ${error.message}${hint}`;
}

// One request as a JSON line. OpenClaw's messages may hold what JSON cannot (a tool result's
// BigInt, an object that refers to itself): those values are written as text or left out,
// so the turn is still captured. `null` if even that fails.
function jsonLine(message) {
  try {
    return `${JSON.stringify(message)}\n`;
  } catch {
    const seen = new WeakSet();
    try {
      const text = JSON.stringify(message, (_key, value) => {
        if (typeof value === "bigint") return value.toString();
        if (value && typeof value === "object") {
          if (seen.has(value)) return undefined;
          seen.add(value);
        }
        return value;
      });
      return `${text}\n`;
    } catch {
      return null;
    }
  }
}

// OpenClaw makes several instances of a plugin in one process (the gateway's root registry,
// which runs services and session hooks, and the agent runtime's, which runs turn hooks and
// tools), each with its own copy of this module, and replaces them on reloads. They share one
// bridge per command and environment through `globalThis`: each instance takes a lease when
// it registers and releases it when OpenClaw disposes it; the bridge closes once no lease is
// left for LINGER_MS.
export function acquireBridge({ command, env = {}, logger = console, lingerMs = LINGER_MS }) {
  const bridges = (globalThis[SHARED] ??= new Map());
  const key = JSON.stringify([command, env]);
  let entry = bridges.get(key);
  if (!entry) {
    entry = { bridge: new BridgeProcess({ command, env, logger }), leases: 0, closing: null };
    bridges.set(key, entry);
  }
  clearTimeout(entry.closing);
  entry.closing = null;
  entry.leases += 1;
  let released = false;
  return {
    bridge: entry.bridge,
    release() {
      if (released) return;
      released = true;
      entry.leases -= 1;
      if (entry.leases > 0) return;
      entry.closing = setTimeout(() => {
        if (entry.leases > 0) return;
        bridges.delete(key);
        entry.bridge.close();
      }, lingerMs);
      entry.closing.unref?.();
    },
  };
}
