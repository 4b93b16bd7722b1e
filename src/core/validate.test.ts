import { describe, expect, it } from "vitest";
import { z } from "zod";
import { zodFieldErrors } from "./validate.js";

describe("zodFieldErrors", () => {
  const schema = z.object({ name: z.string(), count: z.number(), tags: z.array(z.string()) }).strict();

  it("says required only for a missing field, and names the type for a wrong one", () => {
    for (const reportInput of [false, true]) {
      const r = schema.safeParse({ count: "three", tags: ["a", 2], extra: 1 }, { reportInput });
      expect(r.success).toBe(false);
      if (r.success) continue;
      const fields = zodFieldErrors(r.error);
      expect(fields).toContainEqual({ pointer: "/name", message: "required" });
      expect(fields).toContainEqual({ pointer: "/extra", message: "unknown field" });
      const count = fields.find((f) => f.pointer === "/count");
      expect(count?.message).toMatch(/expected number, received string/);
      expect(fields.find((f) => f.pointer === "/tags/1")?.message).toMatch(/expected string/);
    }
  });
});
