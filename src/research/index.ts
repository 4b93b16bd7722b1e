export { loadResearchSettings, type ResearchSettings } from "./config.js";
export { FileSource, SAMPLE_DIR } from "./file-source.js";
export { HttpSource } from "./http-source.js";
export { compareSnapshots, itemChange, type Movement } from "./movement.js";
export { type BookResult, type RankingsResult, Research, storedBoards, storedSnapshots } from "./service.js";
export { type BookDetail, PLATFORM_KEY, type RankingSnapshot } from "./shapes.js";
export type { ResearchSource } from "./source.js";
export { type Freshness, formatAge } from "./staleness.js";
export { type BoardRow, researchDbPath, type SnapshotRow } from "./store.js";
