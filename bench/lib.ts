/** One benchmark figure, printed as a JSON line with --json. */
export interface BenchResult {
  suite: string;
  name: string;
  unit: "ms" | "us" | "ops/s" | "entries/s" | "x" | "chunks" | "MB" | "MiB" | "KiB" | "tokens";
  value: number;
  /** The naive algorithm's figure in the same run, when one exists. */
  baseline?: number;
  /** baseline / value for times (how many times faster we are). */
  ratio?: number;
  target?: string;
}

/** Options given after the suite names: `--patches 1000000` or `--patches=1000000` (name → value). */
export type BenchOptions = ReadonlyMap<string, string>;

/** A named benchmark suite; `run` reports figures through `report`. */
export interface BenchSuite {
  name: string;
  description: string;
  run(report: (r: Omit<BenchResult, "suite">) => void, options?: BenchOptions): Promise<void>;
}

/** Split command-line arguments into suite names, `--json`, and `--name value` options. */
export function parseBenchArgs(args: readonly string[]): {
  suites: string[];
  json: boolean;
  options: Map<string, string>;
} {
  const suites: string[] = [];
  const options = new Map<string, string>();
  let json = false;
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a === "--json") json = true;
    else if (a.startsWith("--")) {
      const eq = a.indexOf("=");
      if (eq > 0) options.set(a.slice(2, eq), a.slice(eq + 1));
      else if (i + 1 < args.length && !args[i + 1].startsWith("--")) options.set(a.slice(2), args[++i]);
      else options.set(a.slice(2), "");
    } else suites.push(a);
  }
  return { suites, json, options };
}

/** A positive integer option, or `fallback` when absent; anything else is a usage error. */
export function intOption(options: BenchOptions | undefined, name: string, fallback: number): number {
  const raw = options?.get(name);
  if (raw === undefined) return fallback;
  const n = Number(raw.replace(/_/g, ""));
  if (!Number.isSafeInteger(n) || n <= 0) throw new Error(`--${name} needs a positive integer, not "${raw}"`);
  return n;
}

/** Median wall time of `fn` in milliseconds, after a warm-up. */
export async function medianMs(
  fn: () => unknown,
  opts: { iterations?: number; warmup?: number } = {},
): Promise<number> {
  return (await medianTimes(fn, opts)).wall;
}

/**
 * Median wall time and median CPU time of `fn` in milliseconds, after a warm-up. The CPU time is
 * the process's (user + system): steadier than wall time on a machine other work shares.
 */
export async function medianTimes(
  fn: () => unknown,
  opts: { iterations?: number; warmup?: number } = {},
): Promise<{ wall: number; cpu: number }> {
  const iterations = opts.iterations ?? 50;
  const warmup = opts.warmup ?? Math.min(10, iterations);
  for (let i = 0; i < warmup; i++) await fn();
  const wall: number[] = [];
  const cpu: number[] = [];
  for (let i = 0; i < iterations; i++) {
    const c0 = process.cpuUsage();
    const t0 = process.hrtime.bigint();
    await fn();
    wall.push(Number(process.hrtime.bigint() - t0) / 1e6);
    const c = process.cpuUsage(c0);
    cpu.push((c.user + c.system) / 1000);
  }
  const median = (xs: number[]) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  return { wall: median(wall), cpu: median(cpu) };
}

/** Round to 4 significant digits for printing. */
export function round(n: number): number {
  return Number(n.toPrecision(4));
}
