/**
 * Settles like `work`, or rejects with `expired()` once `ms` have passed. The work is not stopped
 * (a promise cannot be): its late outcome is dropped, so the caller must leave nothing behind that
 * it would still act on, e.g. by dropping the connection the work was using.
 */
export function timeLimit<T>(work: Promise<T>, ms: number, expired: () => Error): Promise<T> {
  work.catch(() => undefined);
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(expired()), ms);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}
