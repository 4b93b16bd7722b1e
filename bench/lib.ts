/** One benchmark figure, printed as a JSON line with --json. */
export interface BenchResult {
  suite: string;
  name: string;
  unit: "ms" | "us" | "ops/s" | "entries/s" | "x";
  value: number;
  /** The naive algorithm's figure in the same run, when one exists. */
  baseline?: number;
  /** baseline / value for times (how many times faster we are). */
  ratio?: number;
  target?: string;
}

/** A named benchmark suite; `run` reports figures through `report`. */
export interface BenchSuite {
  name: string;
  description: string;
  run(report: (r: Omit<BenchResult, "suite">) => void): Promise<void>;
}

/** Median wall time of `fn` in milliseconds, after a warm-up. */
export async function medianMs(
  fn: () => unknown,
  opts: { iterations?: number; warmup?: number } = {},
): Promise<number> {
  const iterations = opts.iterations ?? 50;
  const warmup = opts.warmup ?? Math.min(10, iterations);
  for (let i = 0; i < warmup; i++) await fn();
  const times: number[] = [];
  for (let i = 0; i < iterations; i++) {
    const t0 = process.hrtime.bigint();
    await fn();
    times.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)];
}

/** Round to 4 significant digits for printing. */
export function round(n: number): number {
  return Number(n.toPrecision(4));
}
