import { serveJobs } from "../../core/workers/serve-jobs.js";
import { extractHtml } from "./extract.js";
import type { ExtractJob } from "./extraction.js";

/** Entry of an extraction worker: the DOM, Readability and turndown load once; each job is one page. */
serveJobs(
  async () => {},
  (job: ExtractJob) => extractHtml(job.html, job.url),
);
