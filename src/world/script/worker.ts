import { loadSandbox, runScriptsInThisThread, serveJobs } from "../sandbox/index.js";
import { runWorldJob } from "./job.js";

/** Entry of a World Engine script's sandbox worker: QuickJS loaded once, projects kept open between jobs. */
runScriptsInThisThread();
serveJobs(async () => {
  await loadSandbox();
}, runWorldJob);
