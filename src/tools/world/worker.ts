import { loadSandbox, runScriptsInThisThread, serveJobs } from "../../world/sandbox/index.js";
import { runWorldJob } from "./job.js";

/** Entry of an execute_world sandbox worker: QuickJS loaded once, projects kept open between jobs. */
runScriptsInThisThread();
serveJobs(async () => {
  await loadSandbox();
}, runWorldJob);
