/**
 * `npm run screenshots [-- <dir>]`: the Control UI's documentation screenshots (docs/control-ui-*.png, or into
 * <dir>). Starts a real gateway with the Control UI (SQLite in a temporary directory), asks it sample questions over
 * the protocol, answers some of them elsewhere so the timeline has summaries, and drives the page in the same
 * Chromium the browser tests use (test/helpers/browser.ts: $CHROMIUM_PATH, Debian's, or the one packed in
 * @sparticuz/chromium). The summaries' icons are emoji: on Debian, `apt-get install fonts-noto-color-emoji` first,
 * or they draw as empty boxes (the script warns when fontconfig knows no colour emoji font).
 *
 *   1. control-ui-stepper.png    the docked stepper on "Question 2 of 3", two questions waiting, history above
 *   2. control-ui-collapsed.png  the slim question bar above the composer, the summary just submitted above it
 *   3. control-ui-answered.png   every question answered: the timeline of summaries
 *   4. control-ui-phone.png      a phone: the stacked card with two questions
 */
import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import type { Browser, Page } from "playwright-core";
import { connectGateway, type GatewayClient } from "../src/client/index.ts";
import { launchBrowser } from "../test/helpers/browser.ts";
import { DEPLOY, THREE, startControlUiGateway } from "../test/helpers/control-ui-gateway.ts";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
const OUT = resolve(process.argv[2] ?? join(ROOT, "docs"));
const WIDE = { width: 1000, height: 760 };
const PHONE = { width: 390, height: 844 };

const MIGRATION = {
  id: "migrate",
  header: "Migration",
  question: "Run the database migration now?",
  options: [{ label: "Yes, now" }, { label: "After the release", description: "Tonight at 22:00" }],
};

function warnWithoutEmojiFont(): void {
  const fonts = spawnSync("fc-list", [":charset=1f600", "family"], { encoding: "utf8" });
  if (fonts.error) return; // no fontconfig tools: nothing to ask
  if (!/emoji/i.test(fonts.stdout)) {
    console.warn("No colour emoji font is installed (fc-list): the summaries' icons will draw as boxes. On Debian: apt-get install fonts-noto-color-emoji");
  }
}

async function main(): Promise<void> {
  warnWithoutEmojiFont();
  mkdirSync(OUT, { recursive: true });
  const dataDir = mkdtempSync(join(tmpdir(), "aub-screenshots-"));
  const token = randomBytes(16).toString("hex");
  const gateway = await startControlUiGateway(dataDir, token);
  let client: GatewayClient | undefined;
  let browser: Browser | undefined;
  try {
    client = await connectGateway({ url: gateway.url, token });
    browser = await launchBrowser();
    await shoot(client, browser, gateway.url, token);
  } finally {
    await browser?.close();
    client?.close();
    await gateway.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

async function shoot(client: GatewayClient, browser: Browser, url: string, token: string): Promise<void> {
  const ask = async (questions: unknown[], extra: Record<string, unknown> = {}) => (await client.request({ questions, ...extra } as Parameters<GatewayClient["request"]>[0])).id;
  const open = async (viewport: { width: number; height: number }): Promise<Page> => {
    const context = await browser.newContext({ viewport });
    context.setDefaultTimeout(15_000);
    const page = await context.newPage();
    page.on("pageerror", (error) => console.error(`page error: ${error.message}`));
    await page.goto(`${url}/#token=${token}`);
    await page.locator('#status[data-state="open"]').waitFor();
    return page;
  };
  const save = async (page: Page, name: string) => {
    // No caret blinking in a picture, and every ticking clock drawn.
    await page.evaluate(() => (document.activeElement instanceof HTMLElement ? document.activeElement.blur() : undefined));
    await page.waitForTimeout(300);
    await page.screenshot({ path: join(OUT, name) });
    console.log(join(OUT, name));
  };
  const option = (page: Page, label: string) => page.locator("#panel label.option", { hasText: label });
  const button = (page: Page, name: string) => page.locator("#panel").getByRole("button", { name, exact: true });

  // History: answered in chat, skipped on the web, expired unanswered.
  const earlier = await ask([{ ...DEPLOY, id: "earlier", question: "Deploy the hotfix first?" }]);
  await client.resolve({ id: earlier, answers: { earlier: ["Production"] }, by: { surface: "telegram", user: "42", userName: "Ada", via: "button" } });
  const skipped = await ask([MIGRATION]);
  await client.resolve({ id: skipped, cancel: true, reason: "skipped", by: { surface: "web", via: "web" } });
  const expired = await ask([{ ...DEPLOY, id: "expired", question: "Roll back the canary?" }], { timeoutSeconds: 1, lateAnswerSeconds: 0 });
  await client.waitAnswer({ id: expired, timeoutMs: 10_000 });

  // Two waiting: the stepper expires first, so it is shown first ("1 of 2 waiting").
  const stepper = await ask(THREE, { timeoutSeconds: 900 });
  const deploy = await ask([DEPLOY], { timeoutSeconds: 1800 });
  const wide = await open(WIDE);
  await option(wide, "Production").click();
  await wide.locator("#panel .step", { hasText: "Question 2 of 3" }).waitFor();
  await option(wide, "Lint").click();
  await option(wide, "E2E").click();
  await save(wide, "control-ui-stepper.png");

  await button(wide, "Next: question 3 of 3").click();
  await option(wide, "The team").click();
  await button(wide, "Submit").click();
  await wide.locator(`.entry[data-id="${stepper}"][data-status="answered"]`).waitFor();
  await wide.locator("#panel .question-text", { hasText: DEPLOY.question }).waitFor();
  await wide.getByRole("button", { name: "Collapse question" }).click();
  await wide.locator("#qbar").waitFor();
  await save(wide, "control-ui-collapsed.png");

  await wide.locator("#qbar button").click();
  await option(wide, "Staging (Recommended)").click();
  await button(wide, "Submit").click();
  await wide.locator(`.entry[data-id="${deploy}"][data-status="answered"]`).waitFor();
  await wide.locator("#panel").waitFor({ state: "hidden" });
  await save(wide, "control-ui-answered.png");

  const card = await ask(THREE.slice(0, 2));
  const phone = await open(PHONE);
  await phone.locator(`.entry-card[data-id="${card}"]`).waitFor();
  await phone.locator(`.entry-card[data-id="${card}"] label.option`, { hasText: "Production" }).click();
  await save(phone, "control-ui-phone.png");
}

await main();
