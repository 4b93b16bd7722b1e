import { NbError } from "../core/errors.js";

/**
 * A counting semaphore: at most `limit` holders at once, the others wait in arrival order. A
 * waiter whose signal aborts leaves the line without taking a slot.
 */
export class Slots {
  private held = 0;
  private readonly waiting: { grant: () => void; signal?: AbortSignal; onAbort?: () => void }[] = [];

  constructor(private max: number) {
    Slots.check(max);
  }

  private static check(limit: number): void {
    if (!Number.isInteger(limit) || limit < 1)
      throw new NbError("invalid_input", `A concurrency limit must be a positive integer, not ${limit}`);
  }

  /** The current limit. */
  get limit(): number {
    return this.max;
  }

  /** Slots in use. */
  get inUse(): number {
    return this.held;
  }

  /** Change the limit; waiters are let in at once when it grew. */
  setLimit(limit: number): void {
    Slots.check(limit);
    this.max = limit;
    this.pump();
  }

  /** Wait for a slot; resolves with its release function, rejects with `aborted` if the signal fires first. */
  acquire(signal?: AbortSignal): Promise<() => void> {
    if (signal?.aborted) return Promise.reject(new NbError("aborted", "Aborted while waiting for a slot"));
    return new Promise((resolve, reject) => {
      const waiter: (typeof this.waiting)[number] = {
        signal,
        grant: () => {
          if (waiter.onAbort) signal?.removeEventListener("abort", waiter.onAbort);
          this.held++;
          let released = false;
          resolve(() => {
            if (released) return;
            released = true;
            this.held--;
            this.pump();
          });
        },
      };
      if (signal) {
        waiter.onAbort = () => {
          const i = this.waiting.indexOf(waiter);
          if (i >= 0) this.waiting.splice(i, 1);
          reject(new NbError("aborted", "Aborted while waiting for a slot"));
        };
        signal.addEventListener("abort", waiter.onAbort, { once: true });
      }
      this.waiting.push(waiter);
      this.pump();
    });
  }

  private pump(): void {
    while (this.held < this.max && this.waiting.length) this.waiting.shift()!.grant();
  }
}
