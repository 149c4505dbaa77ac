/** What a command may touch of the outside world; tests pass their own. */
export interface CliIo {
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly cwd: string;
  /** Whether stdout is a terminal (colours in pretty output). */
  readonly isTty: boolean;
  /** Whether stderr is a terminal (progress lines on long steps). */
  readonly stderrIsTty?: boolean;
  /** Reads all of standard input (a stack given as `-`). */
  readonly stdin?: () => Promise<string>;
}

/** Exit codes shared by every command: 0 clean, 1 errors found, 2 could not run. */
export const EXIT = { clean: 0, errors: 1, cannotRun: 2 } as const;

/**
 * Whether to colour text for a stream: FORCE_COLOR (anything but "0"/"false") forces it on,
 * NO_COLOR (any non-empty value, no-color.org) turns it off, otherwise only on a terminal.
 */
export function wantsColor(env: CliIo['env'], isTty: boolean): boolean {
  const force = env.FORCE_COLOR;
  if (force !== undefined && force !== '' && force !== '0' && force !== 'false') return true;
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  if (force === '0' || force === 'false') return false;
  return isTty;
}
