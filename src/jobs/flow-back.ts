import { systemReminder } from "./reminder.js";
import type { JobTable } from "./store.js";

/** Tells a session something once per delivery id; true when this call queued it. */
export type Deliver = (ownerSessionId: string, deliveryId: string, text: string) => boolean;

/**
 * Delivery as a system follow-up, once per delivery id (however many processes or retries try):
 * queued in the session's queue, then `wake` starts its turn when it is idle (otherwise it waits
 * for its next run).
 */
export function followUpDelivery(
  table: Pick<JobTable, "deliver">,
  wake: (ownerSessionId: string) => unknown,
): Deliver {
  return (ownerSessionId, deliveryId, text) => {
    const queued = table.deliver(ownerSessionId, deliveryId, systemReminder(text));
    if (queued) wake(ownerSessionId);
    return queued;
  };
}
