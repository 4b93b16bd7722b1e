// "Export the book" in the files screen, in a real headless Chromium against a real `nbook serve`:
// the Chinese sample (its workbench in Chinese) downloaded as an EPUB (the saved file is checked, the
// compiler's warnings shown), a chapter range as Markdown, and the compiler's error for a range past
// the end shown to the user.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import JSZip from "jszip";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runNbook } from "../helpers.js";
import { browserMissing, launchChromium, type ServeProcess, shot, startServe } from "./browser.js";

const missing = browserMissing();
const until = <T>(read: () => T | Promise<T>) => expect.poll(read, { timeout: 20_000, interval: 50 });

if (missing) {
  it.skip(`export browser test skipped: ${missing}`, () => {});
} else {
  describe("export the book from the workbench", { timeout: 90_000 }, () => {
    let dir: string;
    let server: ServeProcess;
    let browser: Browser;
    let page: Page;
    const pageErrors: string[] = [];

    // Serve, the sample and Chromium start on a machine the whole suite shares (epubcheck's JVM among
    // it), hence the longer limit.
    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), "nbook-browser-export-"));
      const ws = join(dir, "ws");
      expect(runNbook(["init", ws], { cwd: dir }).status).toBe(0);
      const created = runNbook(
        ["project", "create", "chao", "--sample", "--language", "zh", "--workspace", ws],
        {
          cwd: dir,
        },
      );
      expect(created.status, created.stderr).toBe(0);
      server = await startServe(ws);
      browser = await launchChromium();
      page = await (
        await browser.newContext({
          viewport: { width: 1366, height: 900 },
          locale: "en-GB",
          acceptDownloads: true,
        })
      ).newPage();
      page.setDefaultTimeout(20_000);
      page.on("pageerror", (e) => pageErrors.push(e.message));
      await page.goto(`${server.origin}/`);
      await page.getByTestId("login-token").fill(server.token);
      await page.getByTestId("login-submit").click();
      await page.goto(`${server.origin}/#/p/chao/files`);
      await page.getByTestId("export-book").waitFor();
    }, 120_000);

    afterAll(async () => {
      await browser?.close();
      await server?.stop();
      if (dir) rmSync(dir, { recursive: true, force: true });
    });

    it("downloads the book as an EPUB", async () => {
      await page.getByTestId("export-format").selectOption("epub");
      const [file] = await Promise.all([
        page.waitForEvent("download"),
        page.getByTestId("export-download").click(),
      ]);
      expect(file.suggestedFilename()).toBe("chao.epub");
      const saved = join(dir, "chao.epub");
      await file.saveAs(saved);
      const zip = await JSZip.loadAsync(readFileSync(saved));
      expect(await zip.file("mimetype")!.async("string")).toBe("application/epub+zip");
      expect(await zip.file("OEBPS/content.opf")!.async("string")).toContain("<dc:language>zh</dc:language>");
      expect(await zip.file("OEBPS/nav.xhtml")!.async("string")).toContain("第二章");
      await until(() => page.getByTestId("export-status").textContent()).toBe("已下载 chao.epub");
      // The compiler's warnings are shown: the sample's plot plans a chapter that has no file yet.
      const warnings = page.getByTestId("export-warnings");
      await until(() => warnings.locator("li").count()).toBeGreaterThan(0);
      expect(await warnings.textContent()).toContain("has no file in manuscript/");
      expect(await warnings.textContent()).toContain("编译提示");
      await shot(page, "export-01-epub");
    });

    it("downloads a chapter range as Markdown", async () => {
      await page.getByTestId("export-format").selectOption("md");
      await page.getByTestId("export-from").fill("2");
      await page.getByTestId("export-to").fill("2");
      const [file] = await Promise.all([
        page.waitForEvent("download"),
        page.getByTestId("export-download").click(),
      ]);
      const saved = join(dir, "chao.md");
      await file.saveAs(saved);
      const md = readFileSync(saved, "utf8");
      expect(md).toContain("# 第二章");
      expect(md).not.toContain("# 第一章");
    });

    it("shows the compiler's error for a range past the end, and raised no page error", async () => {
      await page.getByTestId("export-from").fill("1");
      await page.getByTestId("export-to").fill("9");
      await page.getByTestId("export-download").click();
      await until(() => page.getByTestId("export-error").textContent()).toBe(
        "Chapters 1..9: the book has 2 chapters",
      );
      await shot(page, "export-02-error");
      expect(pageErrors).toEqual([]);
    });
  });
}
