import { mkdirSync, writeFileSync } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { dirname, join } from "node:path";

/** A ranking snapshot in the research service's JSON shape: books given as [id, title] in rank order. */
export function snapshotJson(
  platform: string,
  board: string,
  fetchedAt: string,
  books: [string, string][],
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    id: `snap-${fetchedAt}`,
    platform,
    rankTypeKey: board,
    rankType: `Board ${board}`,
    sourceUrl: `https://example.invalid/${platform}/${board}`,
    fetchedAt,
    createdAt: fetchedAt,
    items: books.map(([id, title], i) => ({
      id: `item-${i}`,
      snapshotId: `snap-${fetchedAt}`,
      bookId: `uuid-${id}`,
      rank: i + 1,
      externalBookId: id,
      title,
      author: `Author of ${title}`,
      coverUrl: null,
      metrics: { wordCount: 1_234_567, readCount: null, creationStatus: "连载中", category: "都市" },
    })),
    ...extra,
  };
}

/** A book detail in the research service's JSON shape. */
export function bookJson(
  platform: string,
  id: string,
  fetchedAt: string,
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    bookId: `uuid-${id}`,
    platform,
    externalBookId: id,
    title: `Book ${id}`,
    author: "An Author",
    description: "A book about bells.",
    coverUrl: null,
    genres: ["奇幻"],
    bookStatus: "连载",
    wordCount: 3_125_000,
    metadata: {},
    sourceUrl: `https://example.invalid/${platform}/book/${id}`,
    fetchedAt,
    expiresAt: null,
    stale: false,
    ...extra,
  };
}

/** Write a JSON file, creating its folders. */
export function writeJson(file: string, value: unknown): void {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, `${JSON.stringify(value, null, 2)}\n`);
}

/** A folder of snapshot files in the layout the file source reads. */
export function writeSnapshotDir(
  dir: string,
  snapshots: Record<string, unknown>[],
  books: Record<string, unknown>[] = [],
): void {
  for (const s of snapshots) {
    const name = String(s.fetchedAt).replace(/[:.]/g, "-");
    writeJson(join(dir, String(s.platform), "rankings", String(s.rankTypeKey), `${name}.json`), s);
  }
  for (const b of books) {
    writeJson(join(dir, String(b.platform), "books", `${String(b.externalBookId)}.json`), b);
  }
}

export type Handler = (req: IncomingMessage, res: ServerResponse) => void;

/** A server on 127.0.0.1, port 0, whose handler a test can swap; it records each request's raw path. */
export interface Fixture {
  baseUrl: string;
  paths: string[];
  handle: Handler;
  close(): Promise<void>;
}

/** Start a loopback fixture server; `handle` answers until a test replaces it. */
export async function startFixture(handle: Handler): Promise<Fixture> {
  const fx = { paths: [] as string[], handle } as Fixture;
  const server: Server = createServer((req, res) => {
    fx.paths.push(req.url ?? "");
    fx.handle(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  fx.baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  fx.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return fx;
}

/** Answer with JSON and a status. */
export function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { "content-type": "application/json; charset=utf-8" });
  res.end(JSON.stringify(body));
}

/** A base URL on 127.0.0.1 where nothing listens: a port just freed. */
export async function closedPort(): Promise<string> {
  const fx = await startFixture((_q, r) => r.end());
  await fx.close();
  return fx.baseUrl;
}
