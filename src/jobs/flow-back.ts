import type { Harness } from "../harness/loop.js";
import { systemReminder } from "./reminder.js";

/**
 * Tell a session something as a system follow-up, once per delivery id (however many processes or
 * retries try), and start its turn now when it is idle in this harness; otherwise it waits in the
 * session's queue for its next run. Returns true when this call queued it.
 */
export function deliverFollowUp(
  harness: Pick<Harness, "store" | "runQueued">,
  ownerSessionId: string,
  deliveryId: string,
  text: string,
): boolean {
  const queued = harness.store.jobs.deliver(ownerSessionId, deliveryId, systemReminder(text));
  if (queued) harness.runQueued(ownerSessionId);
  return queued;
}
