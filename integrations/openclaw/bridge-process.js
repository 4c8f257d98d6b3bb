// The Python side of the tinmem plugin: one `tinmem bridge` process, JSON lines both ways,
// shared by every instance of the plugin in a Node process (`acquireBridge`).
//
// Requests never reject: a missing, slow or crashed process gives `undefined`, and each kind
// of failure is logged once. A process that died is started again on a later request, at
// most once every RESTART_DELAY_MS. The process and its pipes do not keep Node running: a
// one-shot `openclaw agent --local` exits when its turn is done, and the Python side then
// reads the end of its input, flushes its captures and exits.
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";

const RESTART_DELAY_MS = 30_000;
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
  }

  warnOnce(kind, message) {
    if (this.warned.has(kind)) return;
    this.warned.add(kind);
    this.logger.warn?.(`tinmem: ${message} (the agent goes on without memory; logged once)`);
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
      this.failed("spawn", `could not start ${program}: ${error.message}`);
      return null;
    }
    child.on("error", (error) => this.failed("spawn", `could not start ${program}: ${error.message}`));
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

  failed(kind, message) {
    this.child = null;
    this.failedAt = Date.now();
    this.warnOnce(kind, message);
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
    const waiting = this.pending.get(reply.id);
    if (!waiting) return;
    this.pending.delete(reply.id);
    clearTimeout(waiting.timer);
    if (reply.error) this.warnOnce(`error:${reply.error.type}`, `${reply.error.type}: ${reply.error.message}`);
    waiting.resolve(reply.error ? undefined : reply.result);
  }

  write(message) {
    const child = this.ensure();
    if (!child) return false;
    try {
      child.stdin.write(`${JSON.stringify(message)}\n`);
      return true;
    } catch (error) {
      this.failed("write", `could not reach the Python side: ${error.message}`);
      return false;
    }
  }

  // Ask and wait at most `timeoutMs`; `undefined` on any failure.
  request(method, params, timeoutMs) {
    const id = this.nextId++;
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        this.warnOnce(`timeout:${method}`, `${method} took longer than ${timeoutMs} ms`);
        resolve(undefined);
      }, timeoutMs);
      this.pending.set(id, { resolve, timer });
      if (!this.write({ id, method, params })) {
        clearTimeout(timer);
        this.pending.delete(id);
        resolve(undefined);
      }
    });
  }

  // Hand over without waiting for the answer (capture, session events).
  send(method, params) {
    this.write({ id: this.nextId++, method, params });
  }

  // End the Python side's input: it flushes its captures and exits. A closed bridge starts
  // no new process; a late request gets `undefined`.
  close() {
    this.closed = true;
    this.child?.stdin.end();
    this.child = null;
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
