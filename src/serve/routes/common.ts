import { z } from "zod";
import { PROJECT_NAME } from "../../workspace/workspace.js";

/** A project folder name, as a path parameter. */
export const projectName = z.string().regex(PROJECT_NAME, "not a project name");

/** `:project` alone. */
export const ProjectParams = z.object({ project: projectName }).strict();

/** `?project=` narrowing a workspace-level listing to a project's layers. */
export const ProjectQuery = z.object({ project: projectName.optional() }).strict();

/** A session id, as a path parameter. */
export const sessionId = z.string().regex(/^[1-9]\d{0,15}$/, "not a session id");
