/**
 * What a newcomer hit in the Control UI (issue 30 §3), each in a real browser against a real gateway
 * (test/helpers/web-page.ts): Skip says it skips the whole prompt and asks before it discards chosen answers; the
 * docked panel never hides the newest timeline entries; the pager's and the stepper's buttons have names that cannot
 * be confused; the soonest-expiring question comes first; the phone composer's placeholder is never cut off.
 */
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import type { AskUserResult } from "../../src/contract/result.ts";
import { PHONE, seriousViolations, useControlUi, WIDE } from "../helpers/web-page.ts";
import { DEPLOY } from "../helpers/control-ui-gateway.ts";

const ui = useControlUi("aub-newcomer-");
const SMALL_PHONE = { width: 360, height: 740 };

const THREE = [
  { id: "env", header: "Env", question: "Which environment?", options: [{ label: "Staging" }, { label: "Production" }] },
  { id: "checks", header: "Checks", question: "Which checks should run?", multiSelect: true, options: [{ label: "Lint" }, { label: "Unit" }, { label: "E2E" }] },
  { id: "notify", header: "Notify", question: "Who should hear about it?", options: [{ label: "Nobody" }, { label: "The team" }] },
];
/** A question with `n` options, each with a description: a tall step. */
const tall = (id: string, n = 4) => ({ id, header: id, question: `Question ${id}?`, options: Array.from({ length: n }, (_, i) => ({ label: `Option ${i + 1}`, description: "What this option does" })) });

async function ask(questions: unknown[], extra: Record<string, unknown> = {}): Promise<string> {
  return (await ui.client.request({ questions, ...extra })).id;
}
const outcome = async (id: string) => (await ui.client.waitAnswer({ id, timeoutMs: 8_000 })) as unknown as AskUserResult;

async function openUi(viewport = WIDE, colorScheme: "light" | "dark" = "light"): Promise<{ page: Page; problems: string[] }> {
  const page = await ui.newPage(viewport, colorScheme);
  const problems: string[] = [];
  page.on("pageerror", (error) => problems.push(`pageerror: ${error.message}`));
  await page.goto(`${ui.gateway.url}/#token=${ui.token}`);
  await page.locator('#status[data-state="open"]').waitFor();
  return { page, problems };
}

const inPanel = (page: Page, name: string) => page.locator("#panel").getByRole("button", { name, exact: true });
const option = (page: Page, label: string) => page.locator("#panel label.option", { hasText: label });
const focusedKey = (page: Page) => page.evaluate(() => document.activeElement?.getAttribute("data-key"));

describe("Skip skips the whole prompt, and asks before it discards chosen answers", () => {
  it("one question: \"Skip\"; with a choice made it asks first, Keep my answers keeps it, and Skip and discard skips", async () => {
    const id = await ask([DEPLOY]);
    const { page, problems } = await openUi();
    await option(page, "Production").click();
    expect(await inPanel(page, "Skip all").count()).toBe(0);
    await inPanel(page, "Skip").click();
    const confirm = page.getByRole("alertdialog", { name: "Skip this question?" });
    await confirm.waitFor();
    expect(await confirm.textContent()).toContain("The answer you chose will be discarded: Deploy Production.");
    expect(await focusedKey(page)).toBe("skip-cancel"); // the safe choice has the focus
    expect(await seriousViolations(page, "#panel")).toEqual([]);
    await page.waitForTimeout(300);
    expect((await ui.client.get(id)).status).toBe("pending");

    await confirm.getByRole("button", { name: "Keep my answers" }).click();
    await confirm.waitFor({ state: "detached" });
    expect(await option(page, "Production").locator("input").isChecked()).toBe(true);
    expect(await focusedKey(page)).toBe("skip");
    expect((await ui.client.get(id)).status).toBe("pending");

    await inPanel(page, "Skip").click();
    await page.getByRole("alertdialog").getByRole("button", { name: "Skip and discard" }).click();
    expect(await outcome(id)).toMatchObject({ status: "no_answer", reason: "skipped" });
    await page.locator(`.entry[data-id="${id}"][data-status="cancelled"]`, { hasText: "Skipped on the web" }).waitFor();
    expect(problems).toEqual([]);
  });

  it("several questions: \"Skip all\", at once with nothing chosen", async () => {
    const id = await ask(THREE);
    const { page } = await openUi();
    await option(page, "Staging").waitFor();
    expect(await inPanel(page, "Skip").count()).toBe(0);
    await inPanel(page, "Skip all").click();
    expect(await outcome(id)).toMatchObject({ status: "no_answer", reason: "skipped" });
    expect(await page.getByRole("alertdialog").count()).toBe(0);
  });

  it("on \"Question 2 of 3\" with question 1 answered: Skip all names what it discards; Escape, or changing a choice, keeps the answers", async () => {
    const id = await ask(THREE);
    const { page, problems } = await openUi();
    await option(page, "Production").click();
    await page.locator("#panel .step", { hasText: "Question 2 of 3" }).waitFor();
    await option(page, "Unit").click();
    await inPanel(page, "Skip all").click();
    const confirm = page.getByRole("alertdialog", { name: "Skip all 3 questions?" });
    await confirm.waitFor();
    expect(await confirm.textContent()).toContain("The answers you chose will be discarded: Env Production; Checks Unit.");
    expect(await seriousViolations(page)).toEqual([]);
    await page.keyboard.press("Escape");
    await confirm.waitFor({ state: "detached" });
    expect(await page.locator("#panel").isVisible()).toBe(true); // Escape closed the confirm step, not the panel
    expect(await option(page, "Unit").locator("input").isChecked()).toBe(true);

    // A choice changed while it asks: the question is stale, so it goes, and nothing is skipped.
    await inPanel(page, "Skip all").click();
    await confirm.waitFor();
    await option(page, "Lint").click();
    await confirm.waitFor({ state: "detached" });
    await inPanel(page, "Back: question 1 of 3").click();
    expect(await option(page, "Production").locator("input").isChecked()).toBe(true);
    expect((await ui.client.get(id)).status).toBe("pending");

    await inPanel(page, "Skip all").click();
    await confirm.getByRole("button", { name: "Skip all and discard" }).click();
    expect(await outcome(id)).toMatchObject({ status: "no_answer", reason: "skipped" });
    expect(problems).toEqual([]);
  });

  it("the phone card asks the same way, in the card (in dark colours)", async () => {
    const id = await ask(THREE.slice(0, 2));
    const { page, problems } = await openUi(PHONE, "dark");
    const card = page.locator(`.entry-card[data-id="${id}"]`);
    await card.locator("label.option", { hasText: "Staging" }).click();
    await card.getByRole("button", { name: "Skip all", exact: true }).click();
    const confirm = card.getByRole("alertdialog", { name: "Skip all 2 questions?" });
    await confirm.waitFor();
    expect(await focusedKey(page)).toBe("skip-cancel");
    expect(await seriousViolations(page)).toEqual([]);
    await confirm.getByRole("button", { name: "Keep my answers" }).click();
    await confirm.waitFor({ state: "detached" });
    expect(await focusedKey(page)).toBe("skip");
    expect(await card.locator("label.option", { hasText: "Staging" }).locator("input").isChecked()).toBe(true);
    await card.getByRole("button", { name: "Skip all", exact: true }).click();
    await confirm.getByRole("button", { name: "Skip all and discard" }).click();
    expect(await outcome(id)).toMatchObject({ status: "no_answer", reason: "skipped" });
    expect(problems).toEqual([]);
  });
});

describe("the docked panel never hides the newest timeline entries", () => {
  /** The bottom of an entry against the top of the dock below the timeline. */
  const bottomAgainstDock = (page: Page, selector: string) =>
    page.evaluate((sel) => {
      const entry = document.querySelector(sel)!.getBoundingClientRect();
      const timeline = document.querySelector("#timeline")!.getBoundingClientRect();
      return { bottom: entry.bottom, top: entry.top, dockTop: document.querySelector("#dock")!.getBoundingClientRect().top, timelineTop: timeline.top };
    }, selector);

  it("after Submit, the summary just submitted and the last entry sit above the panel, which grew for the next question", async () => {
    for (let i = 0; i < 6; i++) {
      const old = await ask([tall(`old${i}`, 2)]);
      await ui.client.resolve({ id: old, answers: { [`old${i}`]: ["Option 1"] }, by: { surface: "web", via: "web" } });
    }
    const first = await ask([tall("first", 2)], { timeoutSeconds: 300 });
    await ask([tall("second"), tall("third"), tall("fourth")], { timeoutSeconds: 900 });
    const { page, problems } = await openUi();
    await page.locator("#panel .question-text", { hasText: "Question first?" }).waitFor();
    await option(page, "Option 2").click();
    await inPanel(page, "Submit").click();
    await page.locator(`.entry[data-id="${first}"][data-status="answered"]`).waitFor();
    await page.locator("#panel .question-text", { hasText: "Question second?" }).waitFor();
    await expect.poll(() => bottomAgainstDock(page, `.entry[data-id="${first}"]`).then((g) => g.bottom - g.dockTop)).toBeLessThanOrEqual(1);
    await expect.poll(() => bottomAgainstDock(page, "#timeline > .entry:last-child").then((g) => g.bottom - g.dockTop)).toBeLessThanOrEqual(1);

    // The window shrinks, so the dock takes more of it: the newest entries stay in sight.
    await page.locator("#timeline").evaluate((t) => (t.scrollTop = t.scrollHeight));
    const before = await bottomAgainstDock(page, "#timeline > .entry:last-child");
    await page.setViewportSize({ width: WIDE.width, height: WIDE.height - 120 });
    await expect.poll(() => bottomAgainstDock(page, "#timeline > .entry:last-child").then((g) => g.bottom - g.dockTop)).toBeLessThanOrEqual(1);
    expect((await bottomAgainstDock(page, "#timeline > .entry:last-child")).dockTop).toBeLessThan(before.dockTop);
    // The timeline takes the keyboard (it scrolls), and the page has no serious violation.
    expect(await seriousViolations(page)).toEqual([]);
    expect(problems).toEqual([]);
  });

  it("scrolled up to read, Submit still brings the summary just submitted into sight", async () => {
    for (let i = 0; i < 8; i++) {
      const old = await ask([tall(`old${i}`, 2)]);
      await ui.client.resolve({ id: old, answers: { [`old${i}`]: ["Option 1"] }, by: { surface: "web", via: "web" } });
    }
    const first = await ask([tall("first", 2)], { timeoutSeconds: 300 });
    await ask([tall("second")], { timeoutSeconds: 900 });
    const { page } = await openUi();
    await option(page, "Option 2").waitFor();
    await page.locator("#timeline").evaluate((t) => t.scrollTo({ top: 0 }));
    await page.waitForFunction(() => document.querySelector("#timeline")!.scrollTop === 0);
    await option(page, "Option 2").click();
    await inPanel(page, "Submit").click();
    await page.locator(`.entry[data-id="${first}"][data-status="answered"]`).waitFor();
    await expect
      .poll(async () => {
        const g = await bottomAgainstDock(page, `.entry[data-id="${first}"]`);
        return g.bottom > g.timelineTop && g.bottom <= g.dockTop + 1;
      })
      .toBe(true);
  });
});

describe("names and order", () => {
  it("the pager's and the stepper's buttons have names that cannot be confused (no name is the start of another)", async () => {
    await ask(THREE, { timeoutSeconds: 300 });
    await ask([DEPLOY], { timeoutSeconds: 900 });
    const { page } = await openUi();
    await option(page, "Production").click();
    await page.locator("#panel .step", { hasText: "Question 2 of 3" }).waitFor();
    // The names as the browser's accessibility tree has them.
    const snapshot = await page.locator("#panel").ariaSnapshot();
    const names = [...snapshot.matchAll(/\bbutton "([^"]*)"/g)].map((m) => m[1]!);
    expect(names).toEqual(expect.arrayContaining(["Previous waiting question", "Next waiting question", "Back: question 1 of 3", "Next: question 3 of 3", "Skip all"]));
    const words = (name: string) => name.toLowerCase().replace(/[^a-z0-9 ]/g, "").trim();
    for (const a of names) for (const b of names) if (a !== b) expect(`${words(b)} `.startsWith(`${words(a)} `), `"${a}" and "${b}"`).toBe(false);
    expect(await page.getByRole("button", { name: "Next waiting question", exact: true }).count()).toBe(1);
    expect(await page.getByRole("button", { name: "Next: question 3 of 3", exact: true }).count()).toBe(1);
    expect(await seriousViolations(page, "#panel")).toEqual([]);
  });

  it("shows the soonest-expiring question first, and pages on in order of expiry, whatever the order they were asked in", async () => {
    const late = await ask([{ ...DEPLOY, id: "late", header: "Late", question: "Expires last?" }], { timeoutSeconds: 900 });
    const soon = await ask([{ ...DEPLOY, id: "soon", header: "Soon", question: "Expires first?" }], { timeoutSeconds: 60 });
    const middle = await ask([{ ...DEPLOY, id: "middle", header: "Middle", question: "Expires second?" }], { timeoutSeconds: 300 });
    const { page, problems } = await openUi();
    const shows = async (text: string, label: string) => {
      await page.locator("#panel .question-text", { hasText: text }).waitFor();
      await page.locator("#panel .pager-label", { hasText: label }).waitFor();
    };
    await shows("Expires first?", "1 of 3 waiting");
    await page.getByRole("button", { name: "Next waiting question" }).click();
    await shows("Expires second?", "2 of 3 waiting");
    await page.getByRole("button", { name: "Next waiting question" }).click();
    await shows("Expires last?", "3 of 3 waiting");
    // Answered, the next one shown is the soonest left.
    await page.getByRole("button", { name: "Previous waiting question" }).click();
    await page.getByRole("button", { name: "Previous waiting question" }).click();
    await shows("Expires first?", "1 of 3 waiting");
    await option(page, "Production").click();
    await inPanel(page, "Submit").click();
    expect(await outcome(soon)).toMatchObject({ status: "answered" });
    await shows("Expires second?", "1 of 2 waiting");
    // The timeline stays a log: oldest first (asked in the same millisecond, by id).
    const asked = await Promise.all([late, soon, middle].map((id) => ui.client.get(id)));
    const byAge = asked.sort((a, b) => a.createdAtMs - b.createdAtMs || (a.id < b.id ? -1 : 1)).map((r) => r.id);
    expect(await page.locator("#timeline > .entry").evaluateAll((els) => els.map((el) => el.getAttribute("data-id")))).toEqual(byAge);
    expect(problems).toEqual([]);
  });
});

describe("the phone composer", () => {
  /** Whether the composer shows its whole placeholder: as text in the same box, it needs no more room than there is. */
  const placeholderFits = (page: Page) =>
    page.locator("#composer-text").evaluate((text: HTMLTextAreaElement) => {
      const saved = text.value;
      text.value = text.placeholder;
      const fits = { placeholder: text.placeholder, height: text.scrollHeight <= text.clientHeight, width: text.scrollWidth <= text.clientWidth };
      text.value = saved;
      return fits;
    });

  it("at 360×740 shows its whole placeholder, for several questions with long headers and for one", async () => {
    const longHeaders = THREE.map((q, i) => ({ ...q, header: ["Environments", "Checks to do", "Notification"][i] }));
    const many = await ask(longHeaders);
    const { page, problems } = await openUi(SMALL_PHONE);
    await page.locator(`.entry-card[data-id="${many}"]`).waitFor();
    await expect.poll(() => page.locator("#composer-text").getAttribute("placeholder")).toContain("Environments, Checks to do, Notification");
    expect(await placeholderFits(page)).toMatchObject({ height: true, width: true });
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(SMALL_PHONE.width);

    await ui.client.resolve({ id: many, cancel: true, reason: "cancelled", by: { surface: "api", via: "api" } });
    await ask([{ ...DEPLOY, header: "Environments" }]);
    await expect.poll(() => page.locator("#composer-text").getAttribute("placeholder")).toContain("“Environments”");
    expect(await placeholderFits(page)).toMatchObject({ height: true, width: true });

    // Typing grows it from there, and once sent it fits its placeholder again.
    await page.locator("#composer-text").fill("2");
    await page.locator("#composer-text").press("Enter");
    await expect.poll(() => page.locator("#composer-text").getAttribute("placeholder")).toBe("No question is waiting for you.");
    expect(await placeholderFits(page)).toMatchObject({ height: true, width: true });
    expect(problems).toEqual([]);
  });
});
