/** The tail of the queue of work on each file, by key (an absolute path). */
const queues = new Map<string, Promise<unknown>>();

/**
 * Run `work` after every earlier `withFileLock` on the same key has finished, so that two
 * read-modify-write cycles on one file in this process (two sessions appending events at once)
 * never interleave and lose a line.
 */
export async function withFileLock<T>(key: string, work: () => Promise<T>): Promise<T> {
  const before = queues.get(key) ?? Promise.resolve();
  const run = before.then(work, work);
  const tail = run.catch(() => undefined);
  queues.set(key, tail);
  try {
    return await run;
  } finally {
    if (queues.get(key) === tail) queues.delete(key);
  }
}
