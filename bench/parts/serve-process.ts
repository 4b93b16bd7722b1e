import { type ChildProcess, spawn } from "node:child_process";

/** A running `nbook serve` process (started by the compiled CLI `cli`), logged in. */
export async function startServe(
  cli: string,
  ws: string,
): Promise<{ origin: string; cookie: string; child: ChildProcess }> {
  const child = spawn(process.execPath, [cli, "serve", "--workspace", ws, "--port", "0"], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout?.on("data", (d: Buffer) => {
      out += d.toString("utf8");
      const m = /Open (http:\/\/127\.0\.0\.1:\d+\/login\?token=\S+)/.exec(out);
      if (m) resolve(m[1]!);
    });
    child.once("exit", (code) => reject(new Error(`nbook serve exited (${code}): ${out}`)));
  });
  const login = await fetch(url, { redirect: "manual" });
  return {
    origin: new URL(url).origin,
    cookie: (login.headers.get("set-cookie") ?? "").split(";")[0]!,
    child,
  };
}
