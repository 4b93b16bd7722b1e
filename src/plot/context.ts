import type { PlotDb } from "./db.js";
import type { PlotWorld } from "./world-link.js";

/** What every plot service call runs with. */
export interface PlotContext {
  readonly db: PlotDb;
  /** Who is acting: a profile key, or "user" for the person at the CLI/UI. Recorded on manual fulfils. */
  readonly actor: string;
  /** The World Engine seen from the plot (time conversion, subjects, slices, states); null when absent. */
  readonly world: PlotWorld | null;
  /** The project's language, for the writer brief. */
  readonly language: "en" | "zh";
}
