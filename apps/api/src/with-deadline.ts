import { DeadlineError } from './to-error-response.ts';

/**
 * Settles as `work` does, or rejects with {@link DeadlineError} after `ms` (and aborts `abort`, so
 * work that watches its signal stops): a database that stops answering (a hung server, a dead
 * socket the OS has not noticed) costs the caller a bounded wait, never a hang. Work that does not
 * watch the signal is not cancelled; its connection fails or returns on its own.
 */
export async function withDeadline<T>(work: Promise<T>, ms: number, what: string, abort?: AbortController): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      const e = new DeadlineError(`${what} did not finish within ${ms} ms (the database is slow or not answering) and was cancelled; retry shortly`);
      abort?.abort(e);
      reject(e);
    }, ms);
  });
  try {
    return await Promise.race([work, deadline]);
  } finally {
    clearTimeout(timer);
    work.catch(() => {});
  }
}
