import type { CliIo } from './cli-io.ts';

/** Progress on long steps: a line per step on a terminal's stderr, with how long it took; silent otherwise. */
export interface Progress {
  /** Runs `work` as one named step. */
  step<T>(label: string, work: () => Promise<T>): Promise<T>;
  /** Starts a step that ends when the next one starts (for steps announced from inside other code). */
  begin(label: string): void;
  /** Ends the open step, if any. */
  end(): void;
}

/** Progress for a command: on when stderr is a terminal (BVL_PROGRESS=1 forces it, 0 silences it). */
export function createProgress(io: CliIo, now: () => number = () => performance.now()): Progress {
  const on = io.env.BVL_PROGRESS === '1' || (io.env.BVL_PROGRESS !== '0' && io.stderrIsTty === true);
  let open: { label: string; at: number } | undefined;
  const end = () => {
    if (!open) return;
    const s = ((now() - open.at) / 1000).toFixed(1);
    io.stderr(io.stderrIsTty ? `\r\u001b[K✓ ${open.label} (${s} s)\n` : `✓ ${open.label} (${s} s)\n`);
    open = undefined;
  };
  const begin = (label: string) => {
    if (!on) return;
    end();
    open = { label, at: now() };
    if (io.stderrIsTty) io.stderr(`… ${label}`);
  };
  return {
    begin,
    end,
    async step(label, work) {
      begin(label);
      try {
        return await work();
      } finally {
        end();
      }
    },
  };
}
