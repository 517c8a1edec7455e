/**
 * The Chromium packed in the @sparticuz/chromium devDependency, forced even where Debian's is installed: it is
 * inflated safely (also by several processes at once), launches with our arguments, and drives the real Control
 * UI end to end. Plus how $CHROMIUM_PATH is honoured, and refused when it points nowhere.
 */
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Browser, Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { connectGateway, type GatewayClient } from "../../src/client/index.ts";
import type { AskUserResult } from "../../src/contract/result.ts";
import { startGateway, type RunningGateway } from "../../src/gateway/run.ts";
import { createControlUi } from "../../src/web/index.ts";
import { askUser } from "../../src/client/sdk.ts";
import { findBrowser, launchBrowser, type FoundBrowser } from "../helpers/browser.ts";
import { tempDir } from "../helpers/temp-dirs.ts";

const TOKEN = randomBytes(16).toString("hex");
const HELPER = join(dirname(fileURLToPath(import.meta.url)), "..", "helpers", "browser.ts");

let packaged: FoundBrowser;
let browser: Browser;
let gateway: RunningGateway;
let client: GatewayClient;
let dataDir: string;

beforeAll(async () => {
  packaged = await findBrowser({ packaged: true });
  browser = await launchBrowser({ packaged: true });
  dataDir = tempDir("aub-packaged-");
  gateway = await startGateway({
    GATEWAY_HOST: "127.0.0.1",
    GATEWAY_PORT: 0,
    GATEWAY_TOKEN: TOKEN,
    DATA_DIR: dataDir,
    STORE: "sqlite",
    DELIVERY_TIMEOUT_SECONDS: 30,
    ASK_DEFAULT_TARGETS: [],
    ASK_TEST_MIN_TIMEOUT_SECONDS: 1,
  }, { webApp: createControlUi });
  client = await connectGateway({ url: gateway.url, token: TOKEN });
}, 60_000);

afterEach(() => {
  vi.unstubAllEnvs();
});

afterAll(async () => {
  await browser?.close();
  client?.close();
  await gateway?.close();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

describe("the Chromium packed in @sparticuz/chromium", () => {
  it("is what { packaged: true } gives, whatever $CHROMIUM_PATH says", async () => {
    vi.stubEnv("CHROMIUM_PATH", "/nonexistent/chromium");
    const found = await findBrowser({ packaged: true });
    expect(found).toEqual(packaged);
    expect(found.source).toBe("packaged");
    expect(found.executablePath).toMatch(/\/aub-chromium-[\d.]+-u\d+\/chromium$/);
    expect(found.executablePath.startsWith(tmpdir())).toBe(true);
    expect(browser.version()).toMatch(/^\d+\./);
  });

  it("renders the real Control UI and answers a question asked through the SDK", async () => {
    let accepted!: (id: string) => void;
    const id = new Promise<string>((resolve) => (accepted = resolve));
    const result: Promise<AskUserResult> = askUser(
      client,
      {
        questions: [
          {
            id: "deploy",
            header: "Deploy",
            question: "Where should I deploy?",
            options: [{ label: "Staging" }, { label: "Production" }],
            multiSelect: true,
          },
        ],
      },
      { onRequested: (q) => accepted(q.id) },
    );
    await id;

    const context = await browser.newContext({ viewport: { width: 1000, height: 760 } });
    context.setDefaultTimeout(8_000);
    try {
      const page: Page = await context.newPage();
      const problems: string[] = [];
      page.on("pageerror", (error) => problems.push(`pageerror: ${error.message}`));
      page.on("console", (message) => {
        if (message.type() === "error") problems.push(`console: ${message.text()}`);
      });
      await page.goto(`${gateway.url}/#token=${TOKEN}`);
      await page.locator('#status[data-state="open"]').waitFor();
      expect(page.url()).toBe(`${gateway.url}/`);
      // The sign-in form itself comes with 401 (no session yet), which Chromium reports once; that one is expected.
      const signInPage = problems.indexOf("console: Failed to load resource: the server responded with a status of 401 (Unauthorized)");
      if (signInPage >= 0) problems.splice(signInPage, 1);
      const question = page.locator("#panel", { hasText: "Where should I deploy?" });
      await question.waitFor();
      // Really laid out with a font: the text has a size on the page.
      const box = await page.locator("#panel").getByText("Where should I deploy?").boundingBox();
      expect(box?.width).toBeGreaterThan(50);
      expect(box?.height).toBeGreaterThan(5);

      await page.locator("#panel label.option", { hasText: "Production" }).click();
      await page.locator("#panel").getByRole("button", { name: "Submit", exact: true }).click();
      expect(await result).toEqual({ status: "answered", answers: { answers: { deploy: ["Production"] } }, answeredBy: { surface: "web", via: "web" } });
      await page.locator(`.entry[data-id="${await id}"][data-status="answered"]`).waitFor();
      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }
    // A closed context does not take the browser with it (as @sparticuz/chromium's --single-process would).
    expect(browser.isConnected()).toBe(true);
    const again = await browser.newPage();
    await again.setContent("<p>still here</p>");
    expect(await again.textContent("p")).toBe("still here");
    await again.close();
  });

  it("is inflated once and safely when several processes start on a cold machine at the same time", async () => {
    const cold = tempDir("aub-cold-");
    try {
      const script = join(cold, "find.mjs");
      writeFileSync(
        script,
        `import { spawnSync } from "node:child_process";
const { findBrowser } = await import(${JSON.stringify(HELPER)});
const found = await findBrowser({ packaged: true });
const run = spawnSync(found.executablePath, ["--version"], { env: { ...process.env, ...found.env }, encoding: "utf8" });
console.log(JSON.stringify({ path: found.executablePath, error: run.error?.code ?? null, status: run.status, out: run.stdout }));
`,
      );
      const runOne = () =>
        new Promise<{ path: string; error: string | null; status: number; out: string }>((resolve, reject) => {
          const child = spawn(process.execPath, ["--import", "tsx", script], { env: { ...process.env, TMPDIR: cold }, stdio: ["ignore", "pipe", "pipe"] });
          let out = "";
          let err = "";
          child.stdout.on("data", (d) => (out += d));
          child.stderr.on("data", (d) => (err += d));
          child.on("error", reject);
          child.on("close", (code) => (code === 0 ? resolve(JSON.parse(out.trim().split("\n").pop()!)) : reject(new Error(`exit ${code}: ${err}`))));
        });
      const runs = await Promise.all([runOne(), runOne()]);
      for (const run of runs) {
        expect(run).toMatchObject({ path: runs[0]!.path, error: null, status: 0 });
        expect(run.out).toMatch(/^Chromium \d+\./);
      }
      expect(runs[0]!.path.startsWith(cold)).toBe(true);
      // One published copy, no staging dirs left behind, nothing spilled into $TMPDIR itself.
      expect(readdirSync(cold).filter((name) => name.startsWith("aub-chromium-"))).toEqual([dirname(runs[0]!.path).slice(cold.length + 1)]);
      expect(readdirSync(cold)).not.toContain("chromium");
    } finally {
      rmSync(cold, { recursive: true, force: true });
    }
  }, 120_000);
});

describe("$CHROMIUM_PATH", () => {
  it("pointing at a missing file is an error that names the variable", async () => {
    vi.stubEnv("CHROMIUM_PATH", "/nonexistent/chromium");
    await expect(findBrowser()).rejects.toThrow(/CHROMIUM_PATH is set to "\/nonexistent\/chromium", but no such file exists/);
    await expect(launchBrowser()).rejects.toThrow(/CHROMIUM_PATH/);
  });

  it("pointing at the packaged binary is the one used", async () => {
    vi.stubEnv("CHROMIUM_PATH", packaged.executablePath);
    const found = await findBrowser();
    expect(found).toEqual({ executablePath: packaged.executablePath, source: "CHROMIUM_PATH", env: {} });
    // $CHROMIUM_PATH gets no help with libraries or fonts; pass what the packaged binary needs here (usually nothing).
    const viaEnv = await launchBrowser({ env: packaged.env });
    try {
      expect(viaEnv.version()).toBe(browser.version());
      const page = await viaEnv.newPage();
      await page.setContent("<h1>from CHROMIUM_PATH</h1>");
      expect(await page.textContent("h1")).toBe("from CHROMIUM_PATH");
    } finally {
      await viaEnv.close();
    }
  });
});
