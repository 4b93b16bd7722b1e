import { spawnSync } from "node:child_process";
import { accessSync, constants, lstatSync, readFileSync, readlinkSync } from "node:fs";
import { delimiter, join } from "node:path";
import { WORLD_DIR } from "../write-reach.js";

/** Where the project folder appears inside the sandbox. */
export const SANDBOX_PROJECT = "/project";
/** The sandbox's home: inside its own /tmp, so it is gone when the call ends. */
export const SANDBOX_HOME = "/tmp/home";
/** PATH inside the sandbox: only the system folders are there. */
export const SANDBOX_PATH = "/usr/local/bin:/usr/bin:/bin:/usr/local/sbin:/usr/sbin:/sbin";
/** Set to `off` to run bash unconfined, every call then asking for approval (tests, broken hosts). */
export const SANDBOX_SWITCH = "NBOOK_BASH_SANDBOX";

/** Whether bash calls can be confined in this process, and if not, why. */
export type SandboxStatus = { confined: true; bwrap: string } | { confined: false; reason: string };

// Programs and libraries, read-only. A merged-/usr system has the others as symlinks into /usr.
const SYSTEM_DIRS = ["/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"];
// Only what programs read from /etc: all of it would show host keys, shadow passwords and tokens.
const ETC_ENTRIES = [
  "passwd",
  "group",
  "nsswitch.conf",
  "ld.so.cache",
  "ld.so.conf",
  "ld.so.conf.d",
  "localtime",
  "timezone",
  "alternatives",
  "locale.alias",
  "mime.types",
  "magic",
  "magic.mime",
];

/**
 * The sandbox without the project: new user, pid, network, ipc, uts and cgroup namespaces; no
 * capabilities (bwrap run by root would keep them, and could unmount what hides `.nbook/`); a new
 * session and death with its parent, so nothing started inside outlives the call; its own /proc
 * (the nbook process and its environment are not in it) with /proc/sys hidden (root may write
 * host sysctls there); an empty /tmp holding the home folder; the system folders read-only.
 */
function systemArgs(): string[] {
  const args = [
    "--unshare-all",
    "--cap-drop",
    "ALL",
    "--die-with-parent",
    "--new-session",
    "--proc",
    "/proc",
    "--tmpfs",
    "/proc/sys",
    "--remount-ro",
    "/proc/sys",
    "--dev",
    "/dev",
    "--tmpfs",
    "/tmp",
    "--dir",
    SANDBOX_HOME,
  ];
  for (const dir of SYSTEM_DIRS) {
    const st = lstatSync(dir, { throwIfNoEntry: false });
    if (st?.isSymbolicLink()) args.push("--symlink", readlinkSync(dir), dir);
    else if (st?.isDirectory()) args.push("--ro-bind", dir, dir);
  }
  for (const entry of ETC_ENTRIES) args.push("--ro-bind-try", `/etc/${entry}`, `/etc/${entry}`);
  return args;
}

/** True when `path` is `dir` or inside it (both absolute, normalised). */
function within(path: string, dir: string): boolean {
  return path === dir || path.startsWith(`${dir}/`);
}

/** What one confined call mounts: the project at /project (read-only when `writable` is false), its `.nbook/` hidden. */
export interface ConfinedCall {
  workspaceRealRoot: string;
  projectRealRoot: string;
  writable: boolean;
  /**
   * A descriptor (as the process numbers it) of the project's `world-engine/` folder, mounted
   * read-only over it in a writable project: those files follow the caller's World Engine access.
   * bwrap mounts the opened folder itself (so a link swapped in by name is not followed) and closes
   * the descriptor before the command runs.
   */
  worldReadOnlyFd?: number;
}

/**
 * bwrap's arguments for one call, up to the command. The project's `.nbook/` (databases, profiles)
 * is covered by an empty read-only folder; a workspace that lies inside a system folder is
 * covered too, so no other project and no workspace config shows through.
 */
export function bwrapArgs(call: ConfinedCall): string[] {
  const args = systemArgs();
  if (SYSTEM_DIRS.some((d) => within(call.workspaceRealRoot, d)))
    args.push("--tmpfs", call.workspaceRealRoot);
  const hidden = `${SANDBOX_PROJECT}/.nbook`;
  args.push(
    call.writable ? "--bind" : "--ro-bind",
    call.projectRealRoot,
    SANDBOX_PROJECT,
    "--tmpfs",
    hidden,
    "--remount-ro",
    hidden,
    ...(call.writable && call.worldReadOnlyFd !== undefined
      ? ["--ro-bind-fd", String(call.worldReadOnlyFd), `${SANDBOX_PROJECT}/${WORLD_DIR}`]
      : []),
    "--chdir",
    SANDBOX_PROJECT,
  );
  return args;
}

/** The first executable `bwrap` on this process's PATH. */
function findBwrap(): string | null {
  for (const dir of (process.env.PATH ?? "").split(delimiter)) {
    if (!dir) continue;
    const file = join(dir, "bwrap");
    try {
      accessSync(file, constants.X_OK);
      return file;
    } catch {}
  }
  return null;
}

/** Start the sandbox once with a no-op command: bwrap may be installed and still refused (no user namespaces). */
function probe(): SandboxStatus {
  if (process.platform !== "linux") return { confined: false, reason: `no sandbox on ${process.platform}` };
  const bwrap = findBwrap();
  if (!bwrap) return { confined: false, reason: "bubblewrap (bwrap) is not installed" };
  const r = spawnSync(bwrap, [...systemArgs(), "--", "bash", "-c", ":"], {
    env: { PATH: SANDBOX_PATH },
    encoding: "utf8",
    timeout: 10_000,
  });
  if (r.status === 0) return { confined: true, bwrap };
  const why = (r.stderr || r.error?.message || `exit ${r.status ?? r.signal}`).trim().split("\n")[0];
  return { confined: false, reason: `bwrap does not work here: ${why.slice(0, 200)}` };
}

let probed: SandboxStatus | undefined;
let noticed = false;

function currentStatus(): SandboxStatus {
  if (process.env[SANDBOX_SWITCH] === "off") return { confined: false, reason: `${SANDBOX_SWITCH}=off` };
  if (!probed) probed = probe();
  return probed;
}

/**
 * Whether bash is confined in this process: probed once, then cached. The first time it is not,
 * one line on stderr says so (the MCP server, a session offering bash, or the first call).
 */
export function sandboxStatus(): SandboxStatus {
  const status = currentStatus();
  if (!status.confined && !noticed) {
    noticed = true;
    process.stderr.write(
      `nbook: bash cannot be confined (${status.reason}); every bash call will ask for approval.\n`,
    );
  }
  return status;
}

// How long a call waits for what its sandbox left behind to be gone, and how often it looks.
const TEARDOWN_LIMIT_MS = 5_000;
const TEARDOWN_POLL_MS = 5;

/** Whether a host process has ended: gone from /proc, or a zombie nobody reaped yet. */
function ended(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) === "Z";
  } catch {
    return true;
  }
}

/**
 * Wait until the sandbox's pid namespace is empty, given what bwrap wrote to `--info-fd`. bwrap
 * exits as soon as the command does, while the kernel is still killing what the command left
 * behind; the namespace's init (`child-pid`) ends only after every other process in it is reaped.
 */
export async function sandboxTeardown(info: string): Promise<void> {
  let pid: unknown;
  try {
    pid = (JSON.parse(info) as { "child-pid"?: unknown })["child-pid"];
  } catch {
    return; // bwrap failed before the sandbox existed: nothing was started
  }
  if (typeof pid !== "number") return;
  const deadline = Date.now() + TEARDOWN_LIMIT_MS;
  while (!ended(pid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, TEARDOWN_POLL_MS));
}
