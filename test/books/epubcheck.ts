import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { delimiter, join } from "node:path";

// Debian's epubcheck installs a jar as /usr/bin/epubcheck, which runs only where binfmt hands jars to
// java; running the jar with java works everywhere it is installed.
const JARS = ["/usr/share/java/epubcheck.jar", "/usr/share/epubcheck/epubcheck.jar"];

function onPath(name: string): string | null {
  for (const dir of (process.env.PATH ?? "").split(delimiter)) {
    const p = join(dir, name);
    if (existsSync(p)) return p;
  }
  return null;
}

/** How to run epubcheck here, or null when it is not installed. */
export function epubcheckCommand(): string[] | null {
  const jar = JARS.find((j) => existsSync(j));
  const java = onPath("java");
  if (jar && java) return [java, "-jar", jar];
  const bin = onPath("epubcheck");
  return bin ? [bin] : null;
}

/** epubcheck's verdict on a file: its exit status and its report. */
export function runEpubcheck(cmd: string[], file: string): Promise<{ ok: boolean; report: string }> {
  return new Promise((resolve) => {
    execFile(cmd[0]!, [...cmd.slice(1), file], { timeout: 170_000 }, (err, stdout, stderr) => {
      resolve({ ok: !err, report: `${stdout}\n${stderr}` });
    });
  });
}
