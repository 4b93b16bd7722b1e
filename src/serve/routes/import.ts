import { z } from "zod";
import { ImportChoicesSchema, importBook, MAX_IMPORT_BYTES } from "../../books/import/index.js";
import { dropUpload, saveUpload, UploadId, uploadSource } from "../../books/import/uploads.js";
import { NbError } from "../../core/errors.js";
import { type ApiRoutes, fromBody } from "../api.js";
import type { ServeHub } from "../hub.js";
import { ImportCreatedSchema, ImportDroppedSchema, ImportPlannedSchema } from "../responses.js";

/** Base64 of the largest manuscript, plus room for the rest of the JSON body. */
const MAX_UPLOAD_BODY = Math.ceil(MAX_IMPORT_BYTES / 3) * 4 + 64 * 1024;

const UploadBody = ImportChoicesSchema.extend({
  filename: z
    .string()
    .min(1)
    .max(255)
    .describe("the file's name; its extension tells the format (.docx, .epub, .md, .txt)"),
  data: z.base64().describe("the file's bytes, base64"),
}).strict();

const ImportParams = z.object({ importId: UploadId }).strict();

/** Import a manuscript: upload → dry-run plan (re-planned with other choices) → create, or discard. */
export function registerImportRoutes(routes: ApiRoutes, hub: ServeHub): void {
  const ws = hub.workspace;

  routes.add(
    {
      method: "post",
      path: "/api/imports",
      tag: "imports",
      response: ImportPlannedSchema,
      summary:
        "Upload a manuscript (DOCX, EPUB, Markdown, text) and get its import plan; nothing is imported yet",
      body: UploadBody,
      maxBody: MAX_UPLOAD_BODY,
      status: 201,
    },
    async (c, { body }) => {
      const { filename, data, ...choices } = body;
      const bytes = Buffer.from(data, "base64");
      const importId = saveUpload(ws, filename, bytes);
      try {
        const { plan } = await fromBody(() =>
          importBook(ws, uploadSource(ws, importId), { ...choices, dryRun: true }),
        );
        return c.json({ importId, plan }, 201);
      } catch (e) {
        // A file that cannot be read is not kept.
        dropUpload(ws, importId);
        throw e;
      }
    },
  );

  routes.add(
    {
      method: "post",
      path: "/api/imports/:importId/plan",
      tag: "imports",
      response: ImportPlannedSchema,
      summary:
        "The import plan of an upload with other choices (project, into, split, title, author, language)",
      params: ImportParams,
      body: ImportChoicesSchema,
    },
    async (c, { params, body }) => {
      const { plan } = await fromBody(() =>
        importBook(ws, uploadSource(ws, params.importId), { ...body, dryRun: true }),
      );
      return c.json({ importId: params.importId, plan });
    },
  );

  routes.add(
    {
      method: "post",
      path: "/api/imports/:importId/create",
      tag: "imports",
      response: ImportCreatedSchema,
      summary:
        "Import the upload: a new project (atomically) or chapters appended to `into`; progress as import_progress events",
      params: ImportParams,
      body: ImportChoicesSchema,
      status: 201,
    },
    async (c, { params, body }) => {
      const { importId } = params;
      const result = await fromBody(() =>
        importBook(ws, uploadSource(ws, importId), body, {
          onProgress: (p) => hub.events.publish("import_progress", { importId, ...p }),
        }),
      );
      if (!result.written) throw new NbError("internal", "The import wrote nothing");
      dropUpload(ws, importId);
      const meta = ws.project(result.plan.project).meta();
      const project = {
        name: result.plan.project,
        title: meta.title,
        summary: meta.summary,
        language: meta.language,
        lastActivity: new Date().toISOString(),
      };
      if (!result.plan.into) hub.events.publish("project_created", { project });
      return c.json({ plan: result.plan, project }, 201);
    },
  );

  routes.add(
    {
      method: "delete",
      path: "/api/imports/:importId",
      tag: "imports",
      response: ImportDroppedSchema,
      summary: "Discard an upload without importing it",
      params: ImportParams,
    },
    (c, { params }) => {
      dropUpload(ws, params.importId);
      return c.json({ dropped: true });
    },
  );
}
