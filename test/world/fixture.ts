import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { blockingEmbedder } from "../../src/models/embeddings/blocking.js";
import { World } from "../../src/world/world.js";

/** A schema covering every attribute type, used by the World Engine tests. */
export const FIXTURE_SCHEMA = `types:
  character:
    attrs:
      name: string
      alive: boolean
      hp: { type: int, default: 100 }
      power: float
      mood: { type: enum, values: [calm, angry] }
      location: ref:location
      inventory: { type: set, of: string, description: unique items }
      skills: { type: list, of: string }
      items: { type: list, of: string }
      refsList: { type: list, of: ref:item }
      stats: { type: object, fields: { str: { type: int, default: 10 }, dex: int } }
      memory: { type: record, of: text }
      events: { type: list, of: text }
      bio: text
  location:
    attrs:
      name: string
      events: { type: list, of: text }
  item:
    attrs:
      name: string
`;

/** A world in a temporary folder with the fixture schema (or `schema`; null = no schema file). */
export function tempWorld(
  schema: string | null = FIXTURE_SCHEMA,
  config: Record<string, unknown> = {},
  checkpointEvery?: number,
  snapshotEvery?: number,
) {
  const dir = mkdtempSync(join(tmpdir(), "nb-world-"));
  const schemaPath = join(dir, "schema.yaml");
  if (schema !== null) writeFileSync(schemaPath, schema);
  const world = new World({
    dbPath: join(dir, "world.sqlite"),
    schemaPath,
    embed: () => blockingEmbedder(config),
    checkpointEvery,
    snapshotEvery,
  });
  return {
    world,
    dir,
    schemaPath,
    setSchema(text: string) {
      writeFileSync(schemaPath, text);
    },
    cleanup() {
      world.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
