import { DeadlineError } from './to-error-response.ts';

/**
 * Settles as `work` does, or rejects with {@link DeadlineError} after `ms`: a database that stops
 * answering (a hung server, a dead socket the OS has not noticed) costs the caller a bounded wait,
 * never a hang. The work itself is not cancelled; its connection fails or returns on its own.
 */
export async function withDeadline<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new DeadlineError(`${what} did not finish within ${ms} ms: the database is not answering; retry shortly`)), ms);
  });
  try {
    return await Promise.race([work, deadline]);
  } finally {
    clearTimeout(timer);
    work.catch(() => {});
  }
}
