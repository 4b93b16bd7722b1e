export { type Deliver, followUpDelivery } from "./flow-back.js";
export { runnerAlive, thisRunner } from "./process.js";
export { FLOW_BACK_WHOLE_MAX, flowBackText, systemReminder } from "./reminder.js";
export {
  cancelElsewhere,
  type JobContext,
  type JobEvent,
  JobRunner,
  type JobRunnerOptions,
  type JobSpec,
  type JobViewer,
  recoverInterruptedJobs,
  visibleJob,
} from "./runner.js";
export { Slots } from "./slots.js";
export {
  ACTIVE_STATUSES,
  type DeliveryState,
  type Job,
  type JobKind,
  type JobResult,
  type JobStatus,
  JobTable,
} from "./store.js";
