import type { CliIo } from './cli-io.ts';
import { COMMAND_HELP, type CommandHelp, type CommandName } from './command-help.ts';

/** A command's entry point: its arguments (after the name) and the outside world; returns the exit code. */
export type CommandRun = (argv: string[], io: CliIo) => Promise<number>;

/** One `bvl` command: its name, a one-line summary, its help text, and how to load it (lazily). */
export interface CommandEntry extends CommandHelp {
  readonly name: CommandName;
  readonly load: () => Promise<CommandRun>;
}

/** How each command is loaded: nothing is loaded until the command runs, so `bvl --help` stays fast. */
const LOADERS = {
  verify: async () => (await import('./commands/verify.ts')).run,
  fix: async () => (await import('./commands/fix.ts')).run,
  publish: async () => (await import('./commands/publish.ts')).run,
  build: async () => (await import('./commands/build.ts')).run,
  serve: async () => (await import('./commands/serve.ts')).run,
  mcp: async () => (await import('./commands/mcp.ts')).run,
  session: async () => (await import('./commands/session.ts')).run,
  token: async () => (await import('./commands/token.ts')).run,
  policy: async () => (await import('./commands/policy.ts')).run,
  eval: async () => (await import('./commands/eval.ts')).run,
  'eval-worker': async () => (await import('./commands/eval-worker.ts')).run,
  baseline: async () => (await import('./commands/baseline.ts')).run,
  rules: async () => (await import('./commands/rules.ts')).run,
  explain: async () => (await import('./commands/explain.ts')).run,
} satisfies Record<CommandName, () => Promise<CommandRun>>;

/**
 * Every `bvl` command, in the order `bvl --help` lists them. Adding a command is its help in
 * command-help.ts, its loader here, and one module under commands/ exporting `run`.
 */
export const COMMANDS: readonly CommandEntry[] = (Object.keys(COMMAND_HELP) as CommandName[]).map((name) => ({
  name,
  ...COMMAND_HELP[name],
  load: LOADERS[name],
}));

/** The command of that name. */
export const commandNamed = (name: string): CommandEntry | undefined => COMMANDS.find((c) => c.name === name);
