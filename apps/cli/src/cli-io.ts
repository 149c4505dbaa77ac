/** What a command may touch of the outside world; tests pass their own. */
export interface CliIo {
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly cwd: string;
  /** Whether stdout is a terminal (colours in pretty output). */
  readonly isTty: boolean;
}

/** Exit codes shared by every command: 0 clean, 1 errors found, 2 could not run. */
export const EXIT = { clean: 0, errors: 1, cannotRun: 2 } as const;
