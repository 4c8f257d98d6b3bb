// `openclaw tinmem …`: the `tinmem` command line, run with the plugin's own settings (its
// `env`: the store, config file and LLM the bridge uses), so `openclaw tinmem list`,
// `search`, `show`, `forget`, `doctor`, `ui`, `ingest` and the rest act on the memory the
// gateway's agents use. Arguments pass through untouched; `openclaw tinmem --help` is
// tinmem's own help. The exit code is tinmem's.
import { spawn } from "node:child_process";

export const CLI_DESCRIPTOR = {
  name: "tinmem",
  description: "tinmem memory: list, search, show, forget, doctor, ui, ingest… (runs `tinmem`)",
  hasSubcommands: true,
};

// The `tinmem` program of the bridge's command: ["tinmem", "bridge"] -> ["tinmem"].
export function cliCommand(bridgeCommand) {
  const command = [...bridgeCommand];
  if (command.length > 1 && command.at(-1) === "bridge") command.pop();
  return command;
}

export function runTinmem(command, env, args) {
  const [program, ...rest] = command;
  return new Promise((resolve) => {
    let child;
    try {
      child = spawn(program, [...rest, ...args], { stdio: "inherit", env: { ...process.env, ...env } });
    } catch (error) {
      process.stderr.write(`tinmem: could not start ${program}: ${error.message}\n`);
      resolve(127);
      return;
    }
    child.on("error", (error) => {
      process.stderr.write(
        `tinmem: could not start ${program}: ${error.message} ` +
          "(install the openclaw-tinmem Python package, or set the plugin's `command`)\n",
      );
      resolve(127);
    });
    child.on("exit", (code, signal) => resolve(code ?? (signal ? 128 : 1)));
  });
}

export function registerTinmemCli(api, config) {
  api.registerCli(
    ({ program }) => {
      program
        .command("tinmem")
        .description(CLI_DESCRIPTOR.description)
        .argument("[arguments...]", "a tinmem command and its arguments (see `openclaw tinmem --help`)")
        .allowUnknownOption(true)
        .helpOption(false)
        .action(async (args) => {
          process.exitCode = await runTinmem(cliCommand(config.command), config.env, args ?? []);
        });
    },
    { descriptors: [CLI_DESCRIPTOR] },
  );
}
