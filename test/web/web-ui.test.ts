/**
 * The web Control UI in a real browser (Chromium through playwright-core; test/helpers/browser.ts picks
 * $CHROMIUM_PATH, Debian's, or the one packed in @sparticuz/chromium) against a real in-process
 * gateway: questions are asked through the protocol, answered in the page, and the asker's result is checked.
 * The documentation's screenshots come from scripts/screenshots.ts (`npm run screenshots`).
 */
import { randomBytes } from "node:crypto";
import { rmSync } from "node:fs";
import { join } from "node:path";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { connectGateway, type GatewayClient } from "../../src/client/index.ts";
import type { AskUserResult } from "../../src/contract/result.ts";
import { startGateway, type RunningGateway } from "../../src/gateway/run.ts";
import { CONTENT_SECURITY_POLICY, createControlUi } from "../../src/web/index.ts";
import { createMemorySessionStore, type SessionStore } from "../../src/web/session-store.ts";
import { askUser } from "../../src/client/sdk.ts";
import { launchBrowser } from "../helpers/browser.ts";
import { tempDir } from "../helpers/temp-dirs.ts";
import { DEPLOY, THREE } from "../helpers/control-ui-gateway.ts";

const TOKEN = randomBytes(16).toString("hex");
const WIDE = { width: 1000, height: 760 };
const PHONE = { width: 375, height: 760 };

let browser: Browser;
/** One context for most tests (each gets its own page, so its own sessionStorage); auth tests make fresh ones. */
let shared: BrowserContext;
let gateway: RunningGateway;
let client: GatewayClient;
let dataDir: string;
/** The Control UI's sessions: one store per test, kept across a restart only where a test says so. */
let sessions: SessionStore;
/** Every request URL the gateway saw (a token must never be one of them). */
let requestUrls: string[];
const contexts: BrowserContext[] = [];
const pages: Page[] = [];

function gatewayConfig(port = 0) {
  return {
    GATEWAY_HOST: "127.0.0.1",
    GATEWAY_PORT: port,
    GATEWAY_TOKEN: TOKEN,
    DATA_DIR: dataDir,
    STORE: "sqlite" as const,
    DELIVERY_TIMEOUT_SECONDS: 30,
    ASK_DEFAULT_TARGETS: [],
    ASK_TEST_MIN_TIMEOUT_SECONDS: 1,
  };
}

beforeAll(async () => {
  browser = await launchBrowser();
  shared = await browser.newContext({ viewport: WIDE });
  shared.setDefaultTimeout(8_000);
});

afterAll(async () => {
  await browser?.close();
});

/** The gateway with the Control UI, and a spy route that records each request URL (and handles nothing). */
function startWithUi(port = 0, store = createMemorySessionStore()) {
  sessions = store;
  return startGateway(gatewayConfig(port), {
    routes: () => [(req) => (requestUrls.push(req.url ?? ""), false)],
    webApp: (ctx) => createControlUi({ ...ctx, sessions: store }),
  });
}

beforeEach(async () => {
  dataDir = tempDir("aub-web-");
  requestUrls = [];
  gateway = await startWithUi();
  client = await connectGateway({ url: gateway.url, token: TOKEN });
});

afterEach(async () => {
  await Promise.all([...pages.splice(0).map((p) => p.close()), ...contexts.splice(0).map((c) => c.close())]);
  client.close();
  await gateway.close();
  rmSync(dataDir, { recursive: true, force: true });
});

// ---------------------------------------------------------------- helpers

/** Asks through the SDK; resolves `id` once the gateway accepted the question, `result` with the asker's result. */
function ask(questions: unknown[], extra: Record<string, unknown> = {}) {
  let accepted!: (id: string) => void;
  const id = new Promise<string>((resolve) => (accepted = resolve));
  const result: Promise<AskUserResult> = askUser(client, { questions, ...extra }, { onRequested: (q) => accepted(q.id) });
  return { id, result };
}

async function rpc(method: string, params: unknown, headers: Record<string, string> = { authorization: `Bearer ${TOKEN}` }) {
  const res = await fetch(`${gateway.url}/rpc/${method}`, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify(params) });
  return { status: res.status, body: (await res.json()) as { ok: boolean; payload?: any; error?: { code: string } } };
}

async function newContext(viewport = WIDE): Promise<BrowserContext> {
  const context = await browser.newContext({ viewport });
  context.setDefaultTimeout(8_000);
  contexts.push(context);
  return context;
}

/** A page signed in with a `/#token=…` link (in a fresh context if asked), once its gateway link is up. */
async function openUi(viewport = WIDE, { fresh = false } = {}): Promise<{ page: Page; problems: string[] }> {
  const context = fresh ? await newContext(viewport) : shared;
  const page = await context.newPage();
  pages.push(page);
  if (!fresh) await page.setViewportSize(viewport);
  const problems: string[] = [];
  page.on("pageerror", (error) => problems.push(`pageerror: ${error.message}`));
  page.on("console", (message) => {
    if (message.type() === "error") problems.push(`console: ${message.text()}`);
  });
  await page.goto(`${gateway.url}/#token=${TOKEN}`);
  await page.locator('#status[data-state="open"]').waitFor();
  // The sign-in form itself comes with 401 (no session yet), which Chromium reports once; that one is expected.
  const signInPage = problems.indexOf("console: Failed to load resource: the server responded with a status of 401 (Unauthorized)");
  if (signInPage >= 0) problems.splice(signInPage, 1);
  return { page, problems };
}

const panel = (page: Page) => page.locator("#panel");
const option = (page: Page, label: string) => page.locator("#panel label.option", { hasText: label });
const button = (page: Page, name: string) => page.locator("#panel").getByRole("button", { name, exact: true });
const step = (page: Page) => page.locator("#panel .step").textContent();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** Waits until the focused element is the panel's (or a card's) Submit button. */
const submitFocused = (page: Page) => page.waitForFunction(() => document.activeElement?.getAttribute("data-key") === "submit");

async function waitForText(page: Page, selector: string, text: string) {
  await page.locator(selector, { hasText: text }).first().waitFor();
}

// ---------------------------------------------------------------- tests

describe("web Control UI", () => {
  it("gives no access without the token: no data, a form asking for it, and a wrong token refused", async () => {
    const { id } = ask([{ ...DEPLOY, question: "Top secret plan?" }]);
    await id;
    const cookieName = `aub_session_${new URL(gateway.url).port}`;

    const bare = await fetch(`${gateway.url}/`);
    const bareHtml = await bare.text();
    expect(bare.status).toBe(401);
    expect(bareHtml).toContain("Gateway token");
    expect(bareHtml).not.toContain("Top secret plan");
    expect(bareHtml).not.toMatch(/<script(?![^>]*\bsrc="\/ui\/sign-in\.js")/);
    expect(bare.headers.get("content-security-policy")).toContain("script-src 'self'");
    expect(bare.headers.get("set-cookie")).toBeNull();

    const forged = await fetch(`${gateway.url}/`, { headers: { cookie: `${cookieName}=${"A".repeat(43)}` } });
    expect(forged.status).toBe(401);
    expect((await rpc("question.list", {}, { cookie: `${cookieName}=${TOKEN}` })).status).toBe(401);
    expect((await rpc("question.list", {}, {})).body.error?.code).toBe("UNAUTHORIZED");

    // In a browser without the cookie: the form, no data, and a WebSocket that gets nothing.
    const login = await (await newContext()).newPage();
    const response = await login.goto(`${gateway.url}/`);
    expect(response?.status()).toBe(401);
    expect(await login.locator("body").textContent()).not.toContain("Top secret plan");
    const wsAnswer = await login.evaluate(
      () =>
        new Promise<string>((resolve) => {
          const ws = new WebSocket(`ws://${location.host}/ws`);
          ws.onopen = () => ws.send(JSON.stringify({ type: "req", id: 1, method: "question.list", params: {} }));
          ws.onmessage = (m) => resolve(JSON.parse(m.data).error?.code ?? "ok");
        }),
    );
    expect(wsAnswer).toBe("UNAUTHORIZED");
    await login.fill("#token", "wrong-token-wrong-token");
    await login.click("button[type=submit]");
    await login.locator(".login-error").waitFor();
    expect((await login.context().cookies()).length).toBe(0);
    await login.fill("#token", TOKEN);
    await login.click("button[type=submit]");
    await login.locator('#status[data-state="open"]').waitFor();
    await waitForText(login, "#panel", "Top secret plan?");
  });

  it("never signs in from ?token= (history, proxy logs): the sign-in form with a note, no cookie, and the token wiped from the address bar", async () => {
    const { id } = ask([{ ...DEPLOY, question: "Top secret plan?" }]);
    await id;
    for (const token of [TOKEN, "w".repeat(32)]) {
      const res = await fetch(`${gateway.url}/?token=${token}`, { redirect: "manual" });
      const html = await res.text();
      expect(res.status).toBe(401);
      expect(res.headers.get("set-cookie")).toBeNull();
      expect(html).toContain("no longer signs in");
      expect(html).not.toContain("Top secret plan");
    }
    const page = await (await newContext()).newPage();
    await page.goto(`${gateway.url}/?token=${TOKEN}`);
    await page.locator(".login-error", { hasText: "no longer signs in" }).waitFor();
    await page.waitForURL(`${gateway.url}/`);
    expect(await page.context().cookies()).toEqual([]);
    expect(await page.locator("#token").inputValue()).toBe("");
  });

  it("signs in from a /#token= link: the token never reaches the gateway in a URL, leaves the address bar, and buys an HttpOnly session cookie named after the port", async () => {
    const { id } = ask([DEPLOY]);
    await id;
    await shared.clearCookies();
    const { page, problems } = await openUi();
    expect(page.url()).toBe(`${gateway.url}/`);
    await option(page, "Production").waitFor();
    expect(requestUrls.length).toBeGreaterThan(3);
    expect(requestUrls.filter((u) => u.includes(TOKEN))).toEqual([]);
    const cookies = await page.context().cookies();
    expect(cookies).toHaveLength(1);
    expect(cookies[0]).toMatchObject({ name: `aub_session_${new URL(gateway.url).port}`, httpOnly: true, sameSite: "Strict", path: "/" });
    expect(cookies[0]!.value).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(cookies[0]!.value).not.toContain(TOKEN);
    expect(await page.evaluate(() => document.cookie)).toBe("");
    expect(problems).toEqual([]);

    // Opened again while signed in: the page, and the token still leaves the address bar.
    await page.goto(`${gateway.url}/#token=${TOKEN}`);
    await page.locator('#status[data-state="open"]').waitFor();
    expect(page.url()).toBe(`${gateway.url}/`);

    const cookie = `${cookies[0]!.name}=${cookies[0]!.value}`;
    const host = new URL(gateway.url).host;
    expect((await rpc("question.list", {}, { cookie, origin: `http://${host}` })).status).toBe(200);
    expect((await rpc("question.list", {}, { cookie, origin: "http://evil.example" })).status).toBe(401);
    expect((await rpc("question.list", {}, { cookie, "sec-fetch-site": "cross-site" })).status).toBe(401);
  });

  it("signs out from the top bar: the session ends on the server, the cookie goes, and other tabs on it are cut off", async () => {
    const { id } = ask([DEPLOY]);
    await id;
    const { page } = await openUi(WIDE, { fresh: true });
    const other = await page.context().newPage();
    pages.push(other);
    await other.goto(`${gateway.url}/`);
    await other.locator('#status[data-state="open"]').waitFor();
    const [before] = await page.context().cookies();
    const cookie = `${before!.name}=${before!.value}`;
    expect((await rpc("question.list", {}, { cookie })).status).toBe(200);

    await page.getByRole("button", { name: "Sign out" }).click();
    await page.locator("#token").waitFor();
    expect(page.url()).toBe(`${gateway.url}/`);
    expect(await page.context().cookies()).toEqual([]);
    expect((await rpc("question.list", {}, { cookie })).status).toBe(401);
    expect((await fetch(`${gateway.url}/`, { headers: { cookie } })).status).toBe(401);
    // The other tab's open WebSocket is closed, and it cannot come back on the ended session.
    await other.locator('#status[data-state="signed-out"]').waitFor();
    await waitForText(other, ".banner", "Your session has ended");
    expect(await other.locator("#panel").isHidden()).toBe(true);

    // Signing out takes a same-origin POST: another site cannot sign anyone out.
    const { page: again } = await openUi(WIDE, { fresh: true });
    const [live] = await again.context().cookies();
    const liveCookie = `${live!.name}=${live!.value}`;
    const forged = await fetch(`${gateway.url}/logout`, { method: "POST", headers: { cookie: liveCookie, origin: "http://evil.example" }, redirect: "manual" });
    expect(forged.status).toBe(403);
    expect(forged.headers.get("set-cookie")).toBeNull();
    expect((await rpc("question.list", {}, { cookie: liveCookie })).status).toBe(200);
  });

  it("answers a single-select question with a click and Submit, and the asker gets the exact answer", async () => {
    const { id, result } = ask([DEPLOY]);
    const { page, problems } = await openUi();
    await waitForText(page, "#panel", "Where should I deploy?");
    await waitForText(page, "#panel", "Real users"); // option descriptions are shown
    expect(await page.locator("#composer").isHidden()).toBe(true); // the expanded panel replaces the composer
    await option(page, "Production").click();
    await button(page, "Submit").click();
    expect(await result).toEqual({ status: "answered", answers: { answers: { deploy: ["Production"] } }, answeredBy: { surface: "web", via: "web" } });
    await panel(page).waitFor({ state: "hidden" });
    const entry = page.locator(`.entry[data-id="${await id}"][data-status="answered"]`);
    await entry.waitFor();
    expect(await entry.textContent()).toContain("Production");
    expect(await entry.textContent()).toContain("Answered on the web");
    expect(problems).toEqual([]);
  });

  it("walks a 3-question stepper by mouse: radios advance, Back keeps choices, checkboxes, descriptions, Submit", async () => {
    const { result } = ask(THREE);
    const { page, problems } = await openUi();
    await option(page, "Staging").waitFor();
    expect(await step(page)).toBe("Question 1 of 3");
    // The step counter is words, not a grey "1/3": large, bold, in the accent colour, and part of the question's name.
    const look = await page.locator("#panel .step-text").evaluate((el) => {
      const style = getComputedStyle(el);
      return { size: parseFloat(style.fontSize), weight: Number(style.fontWeight), color: style.color, muted: getComputedStyle(document.querySelector(".hint")!).color };
    });
    expect(look.size).toBeGreaterThanOrEqual(14);
    expect(look.weight).toBeGreaterThanOrEqual(600);
    expect(look.color).not.toBe(look.muted);
    expect(await page.locator("#panel").getByRole("group", { name: /^Question 1 of 3 Env Which environment\?/ }).count()).toBe(1);
    expect(await button(page, "Skip all").isVisible()).toBe(true);
    expect(await button(page, "Back").isDisabled()).toBe(true);
    await option(page, "Production").click(); // a radio advances
    await waitForText(page, "#panel .step", "Question 2 of 3");
    expect(await button(page, "Skip all").isVisible()).toBe(true);
    await waitForText(page, "#panel", "Slow, about 10 minutes");
    expect(await page.locator("#panel input[type=checkbox]").count()).toBe(3);
    await option(page, "Lint").click();
    await option(page, "E2E").click();
    expect(await step(page)).toBe("Question 2 of 3"); // checkboxes do not advance
    await button(page, "Back: question 1 of 3").click();
    await waitForText(page, "#panel .step", "Question 1 of 3");
    expect(await option(page, "Production").locator("input").isChecked()).toBe(true);
    await button(page, "Next: question 2 of 3").click();
    await waitForText(page, "#panel .step", "Question 2 of 3");
    expect(await option(page, "Lint").locator("input").isChecked()).toBe(true);
    expect(await option(page, "E2E").locator("input").isChecked()).toBe(true);
    await button(page, "Next: question 3 of 3").click();
    await waitForText(page, "#panel .step", "Question 3 of 3");
    await waitForText(page, "#panel", "Post in #deploys");
    await option(page, "The team").click();
    await button(page, "Submit").click();
    expect(await result).toEqual({
      status: "answered",
      answers: { answers: { env: ["Production"], checks: ["Lint", "E2E"], notify: ["The team"] } },
      answeredBy: { surface: "web", via: "web" },
    });
    await panel(page).waitFor({ state: "hidden" });
    expect(problems).toEqual([]);
  });

  it("answers with the keyboard only: number keys pick, Enter advances and submits", async () => {
    const { result } = ask(THREE);
    const { page } = await openUi();
    await option(page, "Staging").waitFor();
    await page.keyboard.press("Enter"); // nothing chosen yet: a hint, no step
    await waitForText(page, "#panel .form-error", "Choose an option");
    expect(await step(page)).toBe("Question 1 of 3");
    await page.keyboard.press("2");
    await waitForText(page, "#panel .step", "Question 2 of 3");
    await page.keyboard.press("1");
    await page.keyboard.press("3");
    await page.keyboard.press("3"); // toggles E2E off again
    await page.keyboard.press("2");
    await page.keyboard.press("Enter");
    await waitForText(page, "#panel .step", "Question 3 of 3");
    await page.keyboard.press("1"); // the last step: focus moves to Submit
    await page.waitForFunction(() => document.activeElement?.textContent === "Submit");
    await page.keyboard.press("Enter");
    expect(await result).toMatchObject({ status: "answered", answers: { answers: { env: ["Production"], checks: ["Lint", "Unit"], notify: ["Nobody"] } } });
  });

  it("takes multi-select choices plus Other text, and Other replaces a single-select radio", async () => {
    const { result } = ask(THREE.slice(0, 2));
    const { page } = await openUi();
    await option(page, "Staging").click();
    await waitForText(page, "#panel .step", "Question 2 of 2");
    await page.locator("#panel").getByRole("button", { name: "Back: question 1 of 2", exact: true }).click();
    await page.locator("#panel .other-input").fill("Canary <b>only</b>");
    expect(await option(page, "Staging").locator("input").isChecked()).toBe(false);
    await page.keyboard.press("Enter");
    await waitForText(page, "#panel .step", "Question 2 of 2");
    await option(page, "Unit").click();
    await page.locator("#panel .other-input").fill("Smoke tests");
    await button(page, "Submit").click();
    expect(await result).toMatchObject({ status: "answered", answers: { answers: { env: ["Canary <b>only</b>"], checks: ["Unit", "Smoke tests"] } } });
    const entry = page.locator('.entry[data-status="answered"]');
    await entry.waitFor();
    expect(await entry.textContent()).toContain("“Canary <b>only</b>”");
    expect(await entry.locator("b").count()).toBe(0);
  });

  it("Skip gives no_answer / skipped, and the summary says Skipped", async () => {
    const { result } = ask(THREE);
    const { page } = await openUi();
    await option(page, "Staging").click();
    await waitForText(page, "#panel .step", "Question 2 of 3");
    await button(page, "Skip all").click();
    await page.getByRole("alertdialog", { name: "Skip all 3 questions?" }).getByRole("button", { name: "Skip all and discard" }).click();
    expect(await result).toEqual({ status: "no_answer", reason: "skipped" });
    await waitForText(page, '.entry[data-status="cancelled"]', "Skipped on the web");
  });

  it("collapses to a slim question bar above the full composer, and expands again", async () => {
    const { result } = ask([DEPLOY]);
    const { page } = await openUi();
    await option(page, "Production").waitFor();
    expect(await page.locator("#composer").isHidden()).toBe(true);
    await page.getByRole("button", { name: "Collapse question" }).click();
    await panel(page).waitFor({ state: "hidden" });
    const bar = page.locator("#qbar");
    await bar.waitFor();
    expect(await bar.textContent()).toContain("Where should I deploy?");
    expect(await page.locator("#composer").isVisible()).toBe(true);
    expect(await page.locator("#composer-text").isEnabled()).toBe(true);
    const barBox = (await bar.boundingBox())!;
    const composerBox = (await page.locator("#composer").boundingBox())!;
    expect(barBox.height).toBeLessThan(70);
    expect(barBox.y + barBox.height).toBeLessThanOrEqual(composerBox.y);
    await bar.getByRole("button").click();
    await option(page, "Production").waitFor();
    expect(await page.locator("#composer").isHidden()).toBe(true);
    await page.keyboard.press("Escape"); // Escape collapses as well
    await bar.waitFor();
    await bar.getByRole("button").click();
    await option(page, "Staging (Recommended)").click();
    await button(page, "Submit").click();
    expect(await result).toMatchObject({ status: "answered", answers: { answers: { deploy: ["Staging (Recommended)"] } } });
  });

  it("takes a plain-text reply from the composer through the shared parser, partial answers included", async () => {
    const single = ask([DEPLOY]);
    const { page } = await openUi();
    await option(page, "Production").waitFor();
    await page.getByRole("button", { name: "Collapse question" }).click();
    await page.locator("#composer-text").fill("2");
    await page.keyboard.press("Enter");
    expect(await single.result).toEqual({ status: "answered", answers: { answers: { deploy: ["Production"] } }, answeredBy: { surface: "web", via: "text" } });
    await waitForText(page, '.entry[data-status="answered"]', "Production");

    const two = ask(THREE.slice(0, 2));
    await option(page, "Staging").waitFor(); // a new question opens expanded again
    await page.getByRole("button", { name: "Collapse question" }).click();
    await page.locator("#composer-text").fill("production");
    await page.keyboard.press("Enter");
    await waitForText(page, ".note-system", "Still needed: Checks");
    // The held answer shows in the panel, which opens on the question still open.
    await page.locator("#qbar button").click();
    await waitForText(page, "#panel .step", "Question 2 of 2");
    await button(page, "Back: question 1 of 2").click();
    expect(await option(page, "Production").locator("input").isChecked()).toBe(true);
    await page.getByRole("button", { name: "Collapse question" }).click();
    await page.locator("#composer-text").fill("lint, e2e");
    await page.keyboard.press("Enter");
    expect(await two.result).toMatchObject({ status: "answered", answers: { answers: { env: ["Production"], checks: ["Lint", "E2E"] } } });

    // A credential-shaped reply is refused and never echoed into the timeline.
    const third = ask([DEPLOY]);
    await third.id;
    await page.getByRole("button", { name: "Collapse question" }).click();
    const secret = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8";
    await page.locator("#composer-text").fill(secret);
    await page.keyboard.press("Enter");
    await waitForText(page, ".note-error", "not recorded");
    expect(await page.locator("#timeline").textContent()).not.toContain(secret);
    expect((await client.get(await third.id)).status).toBe("pending");
  });

  it("refuses a credential typed into Other, pinned to its question, and forgets it", async () => {
    const { id } = ask([DEPLOY]);
    const { page } = await openUi();
    const secret = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8";
    await page.locator("#panel .other-input").fill(secret);
    await button(page, "Submit").click();
    await waitForText(page, "#panel .form-error", "not recorded");
    expect(await page.locator("#panel .other-input").inputValue()).toBe("");
    expect(await page.locator("#panel").textContent()).not.toContain(secret);
    expect((await client.get(await id)).status).toBe("pending");
  });

  it("updates live when a question is answered elsewhere: the panel closes and the summary names who", async () => {
    const { id, result } = ask([DEPLOY]);
    const { page } = await openUi();
    await option(page, "Production").waitFor();
    const resolved = await rpc("question.resolve", { id: await id, answers: { deploy: "staging (recommended)" }, by: { surface: "telegram", user: "42", userName: "Ada", via: "button" } });
    expect(resolved.status).toBe(200);
    await panel(page).waitFor({ state: "hidden" });
    await waitForText(page, `.entry[data-id="${await id}"]`, "Answered in Telegram by Ada");
    expect(await page.locator(`.entry[data-id="${await id}"]`).textContent()).toContain("Staging (Recommended)");
    expect(await result).toMatchObject({ status: "answered", answeredBy: { surface: "telegram", user: "42" } });
    expect(await page.locator("#composer").isVisible()).toBe(true);
  });

  it("restores the panel mid-question after a reload, and keeps every summary", async () => {
    // No late window: the expired question is final at once (one with a window: test/web/web-follow-ups.test.ts).
    const expired = ask([{ ...DEPLOY, question: "Expiring?" }], { timeoutSeconds: 1, lateAnswerSeconds: 0 });
    const cancelled = ask([{ ...DEPLOY, question: "Cancelled?" }]);
    await Promise.all([expired.id, cancelled.id]);
    await rpc("question.resolve", { id: await cancelled.id, cancel: true, reason: "cancelled", by: { surface: "api", via: "api" } });
    expect(await expired.result).toEqual({ status: "no_answer", reason: "expired" });
    const { result } = ask(THREE);
    const { page } = await openUi();
    await option(page, "Production").click();
    await waitForText(page, "#panel .step", "Question 2 of 3");
    await option(page, "Unit").click();

    await page.reload();
    await page.locator('#status[data-state="open"]').waitFor();
    await waitForText(page, "#panel .step", "Question 2 of 3");
    expect(await option(page, "Unit").locator("input").isChecked()).toBe(true);
    await waitForText(page, '.entry[data-status="expired"]', "No answer (expired)");
    await waitForText(page, '.entry[data-status="cancelled"]', "Cancelled via the API");
    await button(page, "Back: question 1 of 3").click();
    expect(await option(page, "Production").locator("input").isChecked()).toBe(true);
    await page.keyboard.press("Enter");
    await page.keyboard.press("Enter");
    await page.keyboard.press("2");
    await page.keyboard.press("Enter");
    expect(await result).toMatchObject({ status: "answered", answers: { answers: { env: ["Production"], checks: ["Unit"], notify: ["The team"] } } });
    await page.locator('.entry[data-status="answered"]').waitFor();
  });

  it("reconnects with backoff after the gateway restarts, and picks up what changed (sessions kept, as a shared store would)", async () => {
    const first = ask([DEPLOY]);
    await first.id;
    const { page } = await openUi();
    await option(page, "Production").waitFor();
    const port = Number(new URL(gateway.url).port);
    client.close();
    await gateway.close();
    await page.locator('#status[data-state="reconnecting"]').waitFor();
    gateway = await startWithUi(port, sessions);
    client = await connectGateway({ url: gateway.url, token: TOKEN });
    // Answered elsewhere while the page was away.
    await client.resolve({ id: await first.id, answers: { deploy: "Production" }, by: { surface: "slack", userName: "Grace", via: "button" } });
    const second = ask([{ ...DEPLOY, id: "again", question: "And the next one?" }]);
    await second.id;
    await page.locator('#status[data-state="open"]').waitFor({ timeout: 15_000 });
    await waitForText(page, "#panel", "And the next one?");
    await waitForText(page, `.entry[data-id="${await first.id}"]`, "Answered in Slack by Grace");
    await option(page, "Staging (Recommended)").click();
    await button(page, "Submit").click();
    expect(await second.result).toMatchObject({ status: "answered", answers: { answers: { again: ["Staging (Recommended)"] } } });
  });

  it("after a restart with sessions in memory only, says the session ended and signs in again", async () => {
    const { id, result } = ask([DEPLOY]);
    result.catch(() => {}); // this client goes with the first gateway
    await id;
    const { page } = await openUi(WIDE, { fresh: true });
    await option(page, "Production").waitFor();
    const port = Number(new URL(gateway.url).port);
    client.close();
    await gateway.close();
    gateway = await startWithUi(port); // a fresh memory store: every session is gone
    client = await connectGateway({ url: gateway.url, token: TOKEN });
    await page.locator('#status[data-state="signed-out"]').waitFor({ timeout: 15_000 });
    expect(await page.locator("#panel").isHidden()).toBe(true);
    expect(await page.locator("#timeline").textContent()).not.toContain("Where should I deploy?");
    await page.locator(".banner").getByRole("link", { name: "Sign in again" }).click();
    await page.fill("#token", TOKEN);
    await page.click("button[type=submit]");
    await option(page, "Production").click();
    await button(page, "Submit").click();
    const answered = await rpc("question.waitAnswer", { id: await id, timeoutMs: 8_000 });
    expect(answered.body.payload).toMatchObject({ status: "answered", answers: { answers: { deploy: ["Production"] } } });
  });

  it("answers questions whose ids are JavaScript property names (constructor, prototype, length, name) in the panel and by text", async () => {
    const byId = (qid: string, multiSelect = false) => ({ id: qid, header: qid, question: `Which for ${qid}?`, multiSelect, options: [{ label: "Yes" }, { label: "No" }] });
    const { page, problems } = await openUi();

    // The panel: every Other field starts empty (not `function Object() { [native code] }`), and Submit goes through.
    const panelAsk = ask([byId("constructor"), byId("prototype", true), byId("length")]);
    await waitForText(page, "#panel", "Which for constructor?");
    expect(await page.locator("#panel .other-input").inputValue()).toBe("");
    await page.locator("#panel .other-input").fill("My own words");
    await button(page, "Next: question 2 of 3").click();
    await waitForText(page, "#panel", "Which for prototype?");
    expect(await page.locator("#panel .other-input").inputValue()).toBe("");
    await option(page, "Yes").click();
    await page.locator("#panel .other-input").fill("More");
    await button(page, "Next: question 3 of 3").click();
    await waitForText(page, "#panel", "Which for length?");
    expect(await page.locator("#panel .other-input").inputValue()).toBe("");
    await option(page, "No").click();
    await button(page, "Submit").click();
    expect(await panelAsk.result).toEqual({
      status: "answered",
      answers: { answers: { constructor: ["My own words"], prototype: ["Yes", "More"], length: ["No"] } },
      // "More" is typed beside a choice: own words too.
      answeredBy: { surface: "web", via: "web", ownWords: ["constructor", "prototype"] },
    });
    const single = ask([byId("name")]);
    await waitForText(page, "#panel", "Which for name?");
    expect(await page.locator("#panel .other-input").inputValue()).toBe("");
    await option(page, "No").click();
    await page.keyboard.press("Enter");
    expect(await single.result).toMatchObject({ status: "answered", answers: { answers: { name: ["No"] } } });

    // By text: a partial reply that leaves `constructor` open is read back and held, and the rest completes it.
    const textAsk = ask([byId("name"), byId("constructor"), byId("length", true)]);
    await waitForText(page, "#panel", "Which for name?");
    await page.getByRole("button", { name: "Collapse question" }).click();
    await page.locator("#composer-text").fill("1: yes");
    await page.keyboard.press("Enter");
    await waitForText(page, ".note-system", "Read as");
    await waitForText(page, ".note-system", "Still needed: constructor, length");
    expect(await page.locator("#composer-text").getAttribute("placeholder")).toContain("constructor");
    await page.locator("#qbar button").click();
    await waitForText(page, "#panel", "Which for constructor?");
    expect(await page.locator("#panel .other-input").inputValue()).toBe("");
    await page.getByRole("button", { name: "Collapse question" }).click();
    await page.locator("#composer-text").fill("no\nyes, no");
    await page.keyboard.press("Enter");
    expect(await textAsk.result).toMatchObject({
      status: "answered",
      answers: { answers: { name: ["Yes"], constructor: ["No"], length: ["Yes", "No"] } },
    });
    expect(await page.locator(".note-error").count()).toBe(0);
    expect(problems).toEqual([]);
  });

  it("pages between several pending questions with previous and next", async () => {
    const a = ask([{ ...DEPLOY, id: "a", header: "First", question: "First question?" }]);
    await a.id;
    await new Promise((r) => setTimeout(r, 3)); // the page orders by creation time; same-millisecond ties by id
    const b = ask([{ ...DEPLOY, id: "b", header: "Second", question: "Second question?" }]);
    await b.id;
    const { page } = await openUi();
    await waitForText(page, "#panel .pager-label", "1 of 2 waiting");
    await waitForText(page, "#panel", "First question?");
    expect(await page.getByRole("button", { name: "Previous waiting question" }).isDisabled()).toBe(true);
    await page.getByRole("button", { name: "Next waiting question" }).click();
    await waitForText(page, "#panel .pager-label", "2 of 2 waiting");
    await waitForText(page, "#panel", "Second question?");
    await option(page, "Production").click();
    await button(page, "Submit").click();
    expect(await b.result).toMatchObject({ status: "answered", answers: { answers: { b: ["Production"] } } });
    await waitForText(page, "#panel", "First question?");
    expect(await page.locator("#panel .pager").count()).toBe(0);
    await option(page, "Staging (Recommended)").click();
    await button(page, "Submit").click();
    expect(await a.result).toMatchObject({ status: "answered", answers: { answers: { a: ["Staging (Recommended)"] } } });
  });

  it("shows stacked inline cards with touch-sized targets on a narrow viewport", async () => {
    const { id, result } = ask(THREE.slice(0, 2));
    const { page, problems } = await openUi(PHONE);
    const card = page.locator(`.entry-card[data-id="${await id}"]`);
    await card.waitFor();
    expect(await panel(page).isHidden()).toBe(true);
    expect(await page.locator("#composer").isVisible()).toBe(true);
    const fieldsets = card.locator("fieldset.question");
    expect(await fieldsets.count()).toBe(2);
    const [top, bottom] = [(await fieldsets.nth(0).boundingBox())!, (await fieldsets.nth(1).boundingBox())!];
    expect(bottom.y).toBeGreaterThanOrEqual(top.y + top.height);
    expect(Math.abs(bottom.x - top.x)).toBeLessThan(2);
    expect(top.x + top.width).toBeLessThanOrEqual(PHONE.width);
    const targets = card.locator("label.option, button, input.other-input");
    const boxes = await targets.evaluateAll((els) => els.map((el) => el.getBoundingClientRect()).map((r) => ({ w: r.width, h: r.height })));
    expect(boxes.length).toBeGreaterThan(6);
    for (const box of boxes) expect(box.h).toBeGreaterThanOrEqual(44);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(PHONE.width);
    await card.locator("label.option", { hasText: "Staging" }).click();
    await card.locator("label.option", { hasText: "Unit" }).click();
    await card.getByRole("button", { name: "Submit" }).click();
    expect(await result).toMatchObject({ status: "answered", answers: { answers: { env: ["Staging"], checks: ["Unit"] } } });
    await page.locator(`.entry[data-id="${await id}"][data-status="answered"]`).waitFor();
    expect(problems).toEqual([]);
  });

  it("shows question text with <script> and <img onerror> as text, and never runs it", async () => {
    const hostile = {
      id: "x",
      header: "<script>",
      question: `<img src=x onerror="window.__pwned=1"> and <script>window.__pwned=2</script>`,
      options: [{ label: "<b>bold</b>", description: `<img src=y onerror="window.__pwned=3">` }, { label: "Fine" }],
    };
    const { result } = ask([hostile]);
    const { page, problems } = await openUi();
    await waitForText(page, "#panel", `<img src=x onerror="window.__pwned=1">`);
    await waitForText(page, "#panel", "<b>bold</b>");
    await waitForText(page, "#panel", "window.__pwned=2");
    expect(await page.locator("#panel img, #timeline img, #panel script, #timeline script, #panel b").count()).toBe(0);
    await option(page, "<b>bold</b>").click();
    await button(page, "Submit").click();
    expect(await result).toMatchObject({ status: "answered", answers: { answers: { x: ["<b>bold</b>"] } } });
    await page.locator('.entry[data-status="answered"]').waitFor();
    await waitForText(page, "#timeline", "window.__pwned=2");
    expect(await page.locator("#timeline img, #timeline b").count()).toBe(0);
    expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
    expect(problems).toEqual([]);
  });

  it("a single single-select question is chosen, then sent: a click or a number key only selects (and can be changed), Submit or Enter sends", async () => {
    const { id, result } = ask([DEPLOY]);
    const { page, problems } = await openUi();
    await option(page, "Production").click();
    await submitFocused(page); // the choice moves the focus to Submit, as on the last step of several
    await sleep(300);
    expect((await client.get(await id)).status).toBe("pending");
    expect(await panel(page).isVisible()).toBe(true);
    expect(await option(page, "Production").locator("input").isChecked()).toBe(true);
    // A change of mind, by keyboard: the number key picks another, and the focus stays on Submit.
    await page.keyboard.press("1");
    await submitFocused(page);
    expect(await option(page, "Staging (Recommended)").locator("input").isChecked()).toBe(true);
    expect(await option(page, "Production").locator("input").isChecked()).toBe(false);
    await sleep(300);
    expect((await client.get(await id)).status).toBe("pending");
    await page.keyboard.press("Enter");
    expect(await result).toMatchObject({ status: "answered", answers: { answers: { deploy: ["Staging (Recommended)"] } } });
    await panel(page).waitFor({ state: "hidden" });

    // Keyboard only: a number key, then Enter.
    const typed = ask([{ ...DEPLOY, id: "typed" }]);
    await option(page, "Production").waitFor();
    await page.keyboard.press("2");
    await submitFocused(page);
    expect((await client.get(await typed.id)).status).toBe("pending");
    await page.keyboard.press("Enter");
    expect(await typed.result).toMatchObject({ status: "answered", answers: { answers: { typed: ["Production"] } } });

    // The phone card the same way: a tap chooses, Submit sends.
    const phone = ask([{ ...DEPLOY, id: "phone" }]);
    await page.setViewportSize(PHONE);
    const card = page.locator(`.entry-card[data-id="${await phone.id}"]`);
    await card.locator("label.option", { hasText: "Production" }).click();
    await sleep(300);
    expect((await client.get(await phone.id)).status).toBe("pending");
    await card.locator("label.option", { hasText: "Staging" }).click();
    await card.getByRole("button", { name: "Submit" }).click();
    expect(await phone.result).toMatchObject({ status: "answered", answers: { answers: { phone: ["Staging (Recommended)"] } } });
    expect(problems).toEqual([]);
  });

  it("shows the time left on the desktop panel, counting down live, as the phone card does", async () => {
    const { id } = ask([DEPLOY], { timeoutSeconds: 100 });
    const { page, problems } = await openUi();
    const clock = page.locator("#panel .panel-top time.expires");
    await clock.waitFor();
    const first = (await clock.textContent())!;
    expect(first).toMatch(/^1:[34]\d left · until \d/);
    expect(await clock.getAttribute("datetime")).toBe(new Date((await client.get(await id)).expiresAtMs).toISOString());
    await page.waitForFunction((before) => document.querySelector("#panel time.expires")?.textContent !== before, first, { timeout: 3_000 });
    expect(await clock.textContent()).toMatch(/^1:[34]\d left/);
    expect(await clock.textContent()).not.toBe(first);
    // Collapsed, the bar shows it too.
    await page.getByRole("button", { name: "Collapse question" }).click();
    await waitForText(page, "#qbar time.expires", "left · until");

    // Longer: in minutes; and the phone card carries the same clock.
    await client.resolve({ id: await id, cancel: true, reason: "cancelled", by: { surface: "api", via: "api" } });
    const long = ask([{ ...DEPLOY, id: "long" }], { timeoutSeconds: 900 });
    await long.id;
    await waitForText(page, "#panel .panel-top time.expires", "15 min left");
    await page.setViewportSize(PHONE);
    await waitForText(page, `.entry-card[data-id="${await long.id}"] time.expires`, "min left · until");
    expect(problems).toEqual([]);
  });

  it("on a phone with several cards, the composer answers the card its placeholder names: the newest, just above it, or the one last touched", async () => {
    const a = ask([{ ...DEPLOY, id: "a", header: "First", question: "First question?" }]);
    await a.id;
    await sleep(3); // the page orders by creation time
    const b = ask([{ ...DEPLOY, id: "b", header: "Second", question: "Second question?" }]);
    await b.id;
    const { page, problems } = await openUi(PHONE);
    const composer = page.locator("#composer-text");
    await page.locator(".entry-card").nth(1).waitFor();
    const placeholder = () => composer.getAttribute("placeholder");
    await expect.poll(placeholder).toContain("“Second”");
    expect(await page.locator(".entry-reply-target").getAttribute("data-id")).toBe(await b.id);
    // Touching the older card makes the composer answer it, and says so.
    await page.locator(`.entry-card[data-id="${await a.id}"] .question-text`).click();
    await expect.poll(placeholder).toContain("“First”");
    expect(await page.locator(".entry-reply-target").getAttribute("data-id")).toBe(await a.id);
    await page.locator(`.entry-card[data-id="${await b.id}"] .other-input`).focus();
    await expect.poll(placeholder).toContain("“Second”");
    await composer.fill("2");
    await composer.press("Enter");
    expect(await b.result).toMatchObject({ status: "answered", answers: { answers: { b: ["Production"] } } });
    // One card left: that one.
    await expect.poll(placeholder).toContain("“First”");
    await composer.fill("1");
    await composer.press("Enter");
    expect(await a.result).toMatchObject({ status: "answered", answers: { answers: { a: ["Staging (Recommended)"] } } });
    expect(problems).toEqual([]);
  });

  it("shows a pending question once: in the panel or its bar, with its timeline entry pointing there", async () => {
    const a = ask([{ ...DEPLOY, id: "a", header: "First", question: "First question?" }]);
    await a.id;
    await sleep(3);
    const b = ask([{ ...DEPLOY, id: "b", header: "Second", question: "Second question?" }]);
    await b.id;
    const { page, problems } = await openUi();
    const times = (text: string) => page.evaluate((t) => document.body.innerText.split(t).length - 1, text);
    await waitForText(page, "#panel", "First question?");
    await waitForText(page, `.entry[data-id="${await a.id}"]`, "Waiting for your answer below");
    expect(await times("First question?")).toBe(1);
    // The other pending question is not in the panel: its entry shows it, with a way to open it.
    expect(await times("Second question?")).toBe(1);
    expect(await page.locator(`.entry[data-id="${await b.id}"]`).getByRole("button", { name: "Answer" }).isVisible()).toBe(true);
    await page.getByRole("button", { name: "Next waiting question" }).click();
    await waitForText(page, "#panel", "Second question?");
    await waitForText(page, `.entry[data-id="${await b.id}"]`, "Waiting for your answer below");
    expect(await times("First question?")).toBe(1);
    expect(await times("Second question?")).toBe(1);
    await page.getByRole("button", { name: "Collapse question" }).click();
    await page.locator("#qbar").waitFor();
    expect(await times("Second question?")).toBe(1);
    expect(problems).toEqual([]);
  });

  it("serves its icon: the sign-in page names it and /favicon.ico answers, under the same strict policy", async () => {
    const icon = await fetch(`${gateway.url}/favicon.ico`);
    expect(icon.status).toBe(200);
    expect(icon.headers.get("content-type")).toBe("image/svg+xml");
    expect(icon.headers.get("content-security-policy")).toBe(CONTENT_SECURITY_POLICY);
    expect(await icon.text()).toMatch(/^<svg /);
    expect((await fetch(`${gateway.url}/favicon.ico`, { method: "HEAD" })).status).toBe(200);

    const login = await (await newContext()).newPage();
    const statuses: string[] = [];
    login.on("response", (response) => statuses.push(`${response.status()} ${new URL(response.url()).pathname}`));
    await login.goto(`${gateway.url}/`);
    await login.locator("#token").waitFor();
    const href = await login.locator('head link[rel="icon"]').getAttribute("href");
    expect(href).toBe("/ui/icon.svg");
    expect(await login.evaluate(async (url) => (await fetch(url)).status, href!)).toBe(200);
    expect(statuses.filter((s) => !/^(200|401) /.test(s))).toEqual([]);
  });
});
