import { NbError } from "../src/core/errors.js";

/** The NbError `fn` throws; any other outcome fails the test. */
export function errorOf(fn: () => unknown): NbError {
  try {
    fn();
  } catch (e) {
    if (e instanceof NbError) return e;
    throw e;
  }
  throw new Error("expected an NbError");
}
