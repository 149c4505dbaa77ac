// Test support: a CliIo that records what a command prints.
import type { CliIo } from './cli-io.ts';

/** A recording CliIo rooted at `cwd`. */
export function recordingIo(cwd: string, env: Record<string, string | undefined> = {}): CliIo & { out: () => string; err: () => string } {
  let out = '';
  let err = '';
  return { stdout: (s) => void (out += s), stderr: (s) => void (err += s), env, cwd, isTty: false, out: () => out, err: () => err };
}
