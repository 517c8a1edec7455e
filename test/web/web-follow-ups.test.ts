/**
 * Issue 20 in the Control UI, in a real browser (test/helpers/browser.ts) against a real in-process gateway with
 * short timeouts (ASK_TEST_MIN_TIMEOUT_SECONDS 1): the page title counts down, the reminder moment is marked and
 * "⏰ Reminder sent" shows when it fired, the timeline lists reminders and escalation steps, and an expired question
 * still takes a late answer on the page while its window is open (then the controls go). Each state is also checked
 * with axe-core: no serious or critical violation.
 */
import { join } from "node:path";
import type { GatewayClient } from "../../src/client/index.ts";
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { PHONE, seriousViolations as violations, useControlUi, WIDE } from "../helpers/web-page.ts";
import { DEPLOY } from "../helpers/control-ui-gateway.ts";

const ui = useControlUi("aub-web-follow-");
const TITLE = "ask-user-bridge";
/** Set WEB_UI_SCREENSHOTS=<dir> to also write screenshots of these states there. */
const SCREENSHOTS = process.env.WEB_UI_SCREENSHOTS;

const LATE_OPEN = "No answer in time — you can still answer; the agent will get it.";

async function ask(extra: Record<string, unknown>, questions: unknown[] = [DEPLOY]): Promise<string> {
  return (await ui.client.request({ questions, ...extra } as Parameters<GatewayClient["request"]>[0])).id;
}

/** Signed in through a `/#token=…` link, with the gateway link up; page errors are collected in `problems`. */
async function openUi(viewport = WIDE, colorScheme: "light" | "dark" = "light"): Promise<{ page: Page; problems: string[] }> {
  const page = await ui.newPage(viewport, colorScheme);
  const problems: string[] = [];
  page.on("pageerror", (error) => problems.push(`pageerror: ${error.message}`));
  page.on("console", (message) => {
    if (message.type() === "error" && !message.text().includes("status of 401")) problems.push(`console: ${message.text()}`);
  });
  await page.goto(`${ui.gateway.url}/#token=${ui.token}`);
  await page.locator('#status[data-state="open"]').waitFor();
  return { page, problems };
}

/** axe-core's serious and critical violations, as `id: nodes` lines, in the page or under `within`. */
async function seriousViolations(page: Page, within?: string): Promise<string[]> {
  return (await violations(page, within)).map((v) => `${v.id}: ${v.nodes.map((n) => n.split(":")[0]).join(", ")}`);
}

async function screenshot(page: Page, name: string) {
  if (SCREENSHOTS) await page.screenshot({ path: join(SCREENSHOTS, name) });
}

const entry = (page: Page, id: string) => page.locator(`.entry[data-id="${id}"]`);
const option = (page: Page, label: string) => page.locator("#panel label.option", { hasText: label });

describe("Control UI: when nobody answers (issue 20)", () => {
  it("the page title shows the time left (⏰ once reminded), the reminder moment is marked, and “Reminder sent” shows when it fired", async () => {
    const { page, problems } = await openUi();
    expect(await page.title()).toBe(TITLE);
    const id = await ask({ timeoutSeconds: 8, reminders: [4], lateAnswerSeconds: 0 });
    await option(page, "Production").waitFor();
    expect(await page.title()).toMatch(new RegExp(`^\\(0:0[5-8]\\) ${TITLE}$`));
    // One mark, not sent yet, part way along the bar.
    const mark = page.locator("#panel .time-bar .time-mark");
    expect(await mark.count()).toBe(1);
    expect(await mark.getAttribute("class")).toBe("time-mark");
    expect(await page.locator("#panel .reminder-sent").count()).toBe(0);
    await screenshot(page, "follow-ups-reminder-due.png");
    expect(await seriousViolations(page, "#panel")).toEqual([]);

    await page.locator("#panel .time-bar .time-mark.sent").waitFor();
    await page.locator("#panel .reminder-sent", { hasText: "Reminder sent" }).waitFor();
    await entry(page, id).locator(".history-reminder", { hasText: "Reminder sent — 4 s left" }).waitFor();
    await page.waitForFunction((title) => /^⏰ \(0:0[0-4]\) /.test(document.title) && document.title.endsWith(title), TITLE);
    await screenshot(page, "follow-ups-reminder-sent.png");
    expect(await seriousViolations(page)).toEqual([]);

    // Expired without a late window: the title is the page's own again, the entry keeps the reminder line.
    await entry(page, id).locator(".entry-outcome", { hasText: "No answer (expired)" }).waitFor();
    await page.waitForFunction((title) => document.title === title, TITLE);
    expect(await entry(page, id).locator(".history-reminder").count()).toBe(1);
    expect(problems).toEqual([]);
  });

  it("the title counts down the soonest pending question, and goes back to the page's name when none is left", async () => {
    const later = await ask({ timeoutSeconds: 600 });
    const { page, problems } = await openUi();
    await option(page, "Production").waitFor();
    await page.waitForFunction((title) => /^\((10|9) min\) /.test(document.title) && document.title.endsWith(title), TITLE);
    const sooner = await ask({ timeoutSeconds: 90 }, [{ ...DEPLOY, id: "soon" }]);
    await page.waitForFunction(() => /^\(1:[23]\d\) /.test(document.title));
    await ui.client.resolve({ id: sooner, cancel: true, reason: "cancelled", by: { surface: "api", via: "api" } });
    await page.waitForFunction(() => /^\((10|9) min\) /.test(document.title));
    await option(page, "Production").click();
    await page.locator("#panel").getByRole("button", { name: "Submit", exact: true }).click();
    await entry(page, later).locator(".entry-outcome", { hasText: "Answered on the web" }).waitFor();
    await page.waitForFunction((title) => document.title === title, TITLE);
    expect(problems).toEqual([]);
  });

  it("the timeline shows an escalation step with the targets it added", async () => {
    const id = await ask({ timeoutSeconds: 30, reminders: [], escalate: [{ afterSeconds: 1, targets: [{ surface: "slack", chat: "C0123ABCD" }] }] });
    const { page, problems } = await openUi();
    const line = entry(page, id).locator(".history-escalation");
    await line.waitFor();
    expect(await line.textContent()).toMatch(/^↗Escalated after 1 s: now also in Slack \(C0123ABCD\) · \d/);
    // The summary after the answer keeps it.
    await option(page, "Production").click();
    await page.locator("#panel").getByRole("button", { name: "Submit", exact: true }).click();
    await entry(page, id).locator(".entry-outcome", { hasText: "Answered on the web" }).waitFor();
    expect(await entry(page, id).locator(".history-escalation").count()).toBe(1);
    await screenshot(page, "follow-ups-escalated.png");
    expect(await seriousViolations(page, "#timeline")).toEqual([]);
    expect(problems).toEqual([]);
  });

  it.each(["light", "dark"] as const)(
    "an expired question keeps the panel within its late window; the late answer given there is recorded as lateAnswer and the entry becomes the late summary (%s)",
    async (scheme) => {
      const { page, problems } = await openUi(WIDE, scheme);
      const id = await ask({ timeoutSeconds: 3, reminders: [], lateAnswerSeconds: 30 });
      // Chosen while pending, not sent: the choice survives the expiry.
      await option(page, "Production").click();
      await page.locator("#panel .late-note", { hasText: LATE_OPEN }).waitFor();
      expect((await ui.client.get(id)).status).toBe("expired");
      expect(await option(page, "Production").locator("input").isChecked()).toBe(true);
      // The controls stay, without Skip (a late answer cannot skip), and without the clock.
      expect(await page.locator("#panel").getByRole("button", { name: "Skip" }).count()).toBe(0);
      expect(await page.locator("#panel time.expires").count()).toBe(0);
      await entry(page, id).locator(".entry-outcome", { hasText: LATE_OPEN }).waitFor();
      expect(await page.title()).toBe(TITLE);
      expect(await seriousViolations(page)).toEqual([]);
      await screenshot(page, `follow-ups-late-open-${scheme}.png`);

      await page.locator("#panel").getByRole("button", { name: "Submit", exact: true }).click();
      await page.locator("#panel").waitFor({ state: "hidden" });
      const record = await ui.client.get(id);
      expect(record).toMatchObject({ status: "expired", lateAnswer: { answers: { deploy: ["Production"] }, by: { surface: "web", via: "web" } } });
      const outcome = entry(page, id).locator(".entry-outcome");
      await outcome.filter({ hasText: "(late) Answered on the web" }).waitFor();
      expect(await entry(page, id).locator(".answer").textContent()).toBe("Production");
      expect(await entry(page, id).locator(".history-expired", { hasText: "No answer in time" }).count()).toBe(1);
      expect(await entry(page, id).locator("input, button").count()).toBe(0);
      expect(await seriousViolations(page)).toEqual([]);
      await screenshot(page, `follow-ups-late-answered-${scheme}.png`);
      expect(problems).toEqual([]);
    },
  );

  it("the composer takes a typed late answer too (a typed skip is refused, and says why)", async () => {
    const { page, problems } = await openUi();
    const id = await ask({ timeoutSeconds: 2, reminders: [], lateAnswerSeconds: 30 });
    await page.locator("#panel .late-note").waitFor();
    await page.getByRole("button", { name: "Collapse question" }).click();
    const composer = page.locator("#composer-text");
    await expect.poll(() => composer.getAttribute("placeholder")).toContain("“Deploy”");
    await composer.fill("skip");
    await composer.press("Enter");
    await entry(page, id).locator(".note-error", { hasText: "not skip it" }).waitFor();
    await composer.fill("2");
    await composer.press("Enter");
    await entry(page, id).locator(".entry-outcome", { hasText: "(late) Answered on the web" }).waitFor();
    expect(await ui.client.get(id)).toMatchObject({ status: "expired", lateAnswer: { answers: { deploy: ["Production"] }, by: { surface: "web", via: "text" } } });
    expect(problems.filter((p) => !p.includes("status of"))).toEqual([]);
  });

  it("on a phone the expired card keeps its controls within the window, and a late answer from another surface ends it", async () => {
    const { page, problems } = await openUi(PHONE);
    const id = await ask({ timeoutSeconds: 2, reminders: [], lateAnswerSeconds: 30 });
    const card = page.locator(`.entry-card[data-id="${id}"]`);
    await card.locator(".late-note", { hasText: LATE_OPEN }).waitFor();
    expect(await card.locator("label.option").count()).toBe(2);
    expect(await card.getByRole("button", { name: "Skip" }).count()).toBe(0);
    await screenshot(page, "follow-ups-late-open-phone.png");
    expect(await seriousViolations(page)).toEqual([]);
    await ui.client.resolve({ id, answers: { deploy: ["Staging (Recommended)"] }, by: { surface: "telegram", user: "42", userName: "Ada", via: "button" } });
    await entry(page, id).locator(".entry-outcome", { hasText: "(late) Answered in Telegram by Ada" }).waitFor();
    expect(await page.locator(".entry-card").count()).toBe(0);
    expect(await entry(page, id).locator("input, button").count()).toBe(0);
    expect(problems).toEqual([]);
  });

  it("after the late window the controls go and the entry reads expired", async () => {
    const { page, problems } = await openUi();
    const id = await ask({ timeoutSeconds: 1, reminders: [], lateAnswerSeconds: 3 });
    await page.locator("#panel .late-note", { hasText: LATE_OPEN }).waitFor({ timeout: 4_000 });
    expect(await option(page, "Production").count()).toBe(1);
    await entry(page, id).locator(".entry-outcome", { hasText: "No answer (expired)" }).waitFor({ timeout: 6_000 });
    await page.locator("#panel").waitFor({ state: "hidden" });
    expect(await page.locator(".option, .qform").count()).toBe(0);
    expect(await page.locator("#composer-text").getAttribute("placeholder")).toBe("No question is waiting for you.");
    // The gateway refuses an answer now, and the page agrees.
    await expect(ui.client.resolve({ id, answers: { deploy: ["Production"] }, by: { surface: "web", via: "web" } })).rejects.toMatchObject({ code: "QUESTION_ALREADY_TERMINAL" });
    expect(problems).toEqual([]);
  });
});
