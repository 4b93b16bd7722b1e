import type { Command } from "commander";
import { NbError } from "../../core/errors.js";
import { Workspace } from "../../workspace/workspace.js";
import { reportCliError, writeErr, writeOut } from "../output.js";

interface ServeCliOptions {
  workspace?: string;
  port: string;
  host: string;
  script?: string;
  hashPassword?: boolean;
}

function port(text: string): number {
  const n = Number(text);
  if (!/^\d+$/.test(text) || n > 65535)
    throw new NbError("invalid_input", "--port must be a whole number from 0 to 65535");
  return n;
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of process.stdin) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

const HELP = `
Open the printed login URL in a browser: its token works once and gives the browser a session
cookie (restart nbook serve for a new link). Every request must name this server as its Host, and
every POST/PUT/DELETE must come from its own Origin, so no other web page can use the API.
Binding beyond 127.0.0.1 (--host 0.0.0.0) needs a password: \`nbook serve --hash-password\` reads it
from stdin and prints the "serve" section for .nbook/config.json; then POST /api/auth/login logs in.
API, events and login: docs/serve.md; the typed list is /api/openapi.json.`;

/** `nbook serve`: the web workbench and its HTTP API, with agents running in this process. */
export function registerServe(program: Command): void {
  program
    .command("serve")
    .description("Serve the web workbench and its HTTP API (agents run in this process)")
    .option("--workspace <dir>", "workspace root")
    .option("--port <n>", "port (0 = any free port)", "7330")
    .option("--host <address>", "address to bind (beyond loopback needs a configured password)", "127.0.0.1")
    .option("--script <file>", "run every session on a scripted model (offline; docs/scripted-model.md)")
    .option("--hash-password", "read a password from stdin and print the config that sets it, then exit")
    .addHelpText("after", HELP)
    .action(async (o: ServeCliOptions) => {
      try {
        const { hashPassword, startServer } = await import("../../serve/index.js");
        if (o.hashPassword) {
          const password = (await readStdin()).replace(/\r?\n$/, "");
          writeOut(`${JSON.stringify({ serve: { passwordHash: hashPassword(password) } }, null, 2)}\n`);
          return;
        }
        const workspace = Workspace.discover({ workspace: o.workspace });
        const log = (line: string) => writeErr(`${line}\n`);
        const h = await startServer({ workspace, host: o.host, port: port(o.port), script: o.script, log });
        writeOut(`NeuroBook is serving ${workspace.root}\nOpen ${h.loginUrl}  (the link works once)\n`);
        const stop = () => void h.close().then(() => process.exit(0));
        process.once("SIGINT", stop);
        process.once("SIGTERM", stop);
      } catch (e) {
        reportCliError(e);
      }
    });
}
