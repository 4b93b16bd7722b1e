import { join } from "node:path";
import type { Project } from "../../workspace/project.js";
import { CalendarFile } from "./file.js";
import { ScriptedCalendar } from "./script.js";
import type { Calendar } from "./types.js";

export { CustomCalendar, type CustomConfig, CustomConfigSchema } from "./custom.js";
export { CalendarFile } from "./file.js";
export { GregorianCalendar, type GregorianConfig, GregorianConfigSchema } from "./gregorian.js";
export { type CalendarLanguage, createCalendar, parseCalendarYaml } from "./load.js";
export { ScriptedCalendar } from "./script.js";
export { SimpleCalendar, type SimpleConfig, SimpleConfigSchema } from "./simple.js";
export { type DateInput, type DateParts, SolarCalendar } from "./solar.js";
export type { Calendar, CalendarDescription, CalendarKind } from "./types.js";

/** Path of a project's calendar file, relative to the project root. */
export const CALENDAR_FILE = "world-engine/calendar.yaml";

/** The project's calendar, cached per project and reloaded when calendar.yaml changes. */
export function loadCalendar(project: Project): Calendar {
  const file = project.resource(
    "calendar",
    () =>
      new CalendarFile(join(project.root, CALENDAR_FILE), project.realRoot, () => project.meta().language),
  );
  return file.get();
}

/** loadCalendar, with the sandbox loaded when the calendar's format/parse are JavaScript. */
export async function openCalendar(project: Project): Promise<Calendar> {
  const calendar = loadCalendar(project);
  return calendar instanceof ScriptedCalendar ? calendar.ready() : calendar;
}
