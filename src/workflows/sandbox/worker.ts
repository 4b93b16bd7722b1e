import { serveJobs } from "../../core/workers/serve-jobs.js";
import { loadSandbox, runScriptsInThisThread } from "../../world/sandbox/index.js";
import { describeModule, runPass } from "./pass.js";
import type { SandboxJob } from "./protocol.js";

/** Entry of a workflow sandbox worker: QuickJS loaded once; each job is one pure pass or describe. */
runScriptsInThisThread();
serveJobs(
  async () => {
    await loadSandbox();
  },
  (job: SandboxJob) =>
    job.kind === "describe" ? describeModule(job.source, job.filename, job.limits) : runPass(job),
);
