/**
 * What the Control UI's browser tests share: a real browser for the file, a fresh in-process gateway with the UI for
 * each test (SQLite, short timeouts allowed), pages in their own contexts, and axe-core's serious and critical
 * violations. axe is injected as a script, which the page's own policy (no inline script, Trusted Types) rightly
 * refuses, so these contexts bypass the CSP; the policy itself is tested in web-assets.test.ts and web-ui.test.ts.
 */
import { randomBytes } from "node:crypto";
import { readFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, beforeEach } from "vitest";
import { connectGateway, type GatewayClient } from "../../src/client/index.ts";
import type { RunningGateway } from "../../src/gateway/run.ts";
import { startControlUiGateway } from "./control-ui-gateway.ts";
import { launchBrowser } from "./browser.ts";
import { tempDir } from "./temp-dirs.ts";

export const WIDE = { width: 1000, height: 760 };
export const PHONE = { width: 375, height: 760 };
const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");

export interface Violation {
  id: string;
  impact: string | null | undefined;
  help: string;
  nodes: string[];
}

/** Registers the hooks; the returned object's fields are valid inside tests. */
export function useControlUi(dataDirPrefix: string) {
  const token = randomBytes(16).toString("hex");
  const contexts: BrowserContext[] = [];
  let dataDir = "";
  const ui = {
    token,
    browser: undefined as unknown as Browser,
    gateway: undefined as unknown as RunningGateway,
    client: undefined as unknown as GatewayClient,
    /** A page in a fresh context (closed after the test). */
    async newPage(viewport = WIDE, colorScheme: "light" | "dark" = "light"): Promise<Page> {
      const context = await ui.browser.newContext({ viewport, colorScheme, bypassCSP: true });
      context.setDefaultTimeout(8_000);
      contexts.push(context);
      return context.newPage();
    },
  };

  beforeAll(async () => {
    ui.browser = await launchBrowser();
  });
  afterAll(async () => {
    await ui.browser?.close();
  });
  beforeEach(async () => {
    dataDir = tempDir(dataDirPrefix);
    ui.gateway = await startControlUiGateway(dataDir, token);

    ui.client = await connectGateway({ url: ui.gateway.url, token });
  });
  afterEach(async () => {
    await Promise.all(contexts.splice(0).map((c) => c.close()));
    ui.client.close();
    await ui.gateway.close();
    rmSync(dataDir, { recursive: true, force: true });
  });
  return ui;
}

/** axe-core's serious and critical violations in the page (or under `within`), each with the nodes it found. */
export async function seriousViolations(page: Page, within?: string): Promise<Violation[]> {
  if (!(await page.evaluate(() => "axe" in window))) await page.addScriptTag({ content: AXE_SOURCE });
  const violations = await page.evaluate(async (selector) => {
    const axe = (window as unknown as { axe: typeof import("axe-core") }).axe;
    const results = await axe.run(selector ? { include: [selector] } : document, { resultTypes: ["violations"] });
    return results.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((n) => `${n.target.join(" ")}: ${n.failureSummary ?? ""}`) }));
  }, within);
  return violations.filter((v) => v.impact === "serious" || v.impact === "critical");
}
