// PDF: the HTML export printed by a headless Chromium (Debian's package), A5 pages with margins.
import { existsSync } from "node:fs";
import { NbError } from "../../core/errors.js";
import { buildHtml } from "./html.js";
import type { Book } from "./manuscript.js";

/** The Chromium printed with: NBOOK_CHROMIUM, else Debian's. */
export function chromiumPath(): string {
  return process.env.NBOOK_CHROMIUM ?? "/usr/bin/chromium";
}

const MISSING =
  "PDF export prints through Chromium, which is not installed: install the Debian package `chromium` (apt-get install chromium), or export html and print it";

/** The book as a PDF, or `unsupported` naming the package to install when there is no Chromium. */
export async function buildPdf(book: Book): Promise<Uint8Array> {
  const executablePath = chromiumPath();
  if (!existsSync(executablePath)) throw new NbError("unsupported", MISSING);
  let chromium: typeof import("playwright-core").chromium;
  try {
    ({ chromium } = await import("playwright-core"));
  } catch {
    throw new NbError(
      "unsupported",
      "PDF export needs the playwright-core package (npm install playwright-core) to drive Chromium",
    );
  }
  // As root (CI, containers) Chromium's own sandbox cannot start; the page is our own HTML, with
  // JavaScript off and every request refused, so nothing from outside runs in it.
  const browser = await chromium.launch({
    executablePath,
    headless: true,
    args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"],
  });
  try {
    const context = await browser.newContext({ javaScriptEnabled: false });
    const page = await context.newPage();
    await page.route("**/*", (route) => route.abort());
    await page.setContent(buildHtml(book), { waitUntil: "load" });
    const pdf = await page.pdf({
      format: "A5",
      margin: { top: "18mm", bottom: "18mm", left: "16mm", right: "16mm" },
      printBackground: false,
    });
    return new Uint8Array(pdf);
  } finally {
    await browser.close();
  }
}
