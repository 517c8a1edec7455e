/**
 * The Control UI's accessibility, checked by axe-core inside a real browser (test/helpers/browser.ts) against a real
 * in-process gateway: the sign-in page, the docked panel (one question), the stepper (several, on each kind of
 * step), the collapsed bar, the phone cards and the timeline's summaries, in light and dark colours. Every state must
 * have no serious or critical violation.
 *
 * axe is injected as a script, which the page's own policy (no inline script, Trusted Types) rightly refuses, so these
 * browser contexts bypass the CSP (test/helpers/web-page.ts).
 */
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { PHONE, seriousViolations, useControlUi, WIDE } from "../helpers/web-page.ts";
import { DEPLOY } from "../helpers/control-ui-gateway.ts";

const ui = useControlUi("aub-a11y-");

const THREE = [
  { id: "env", header: "Env", question: "Which environment?", options: [{ label: "Staging" }, { label: "Production" }] },
  {
    id: "checks",
    header: "Checks",
    question: "Which checks should run?",
    multiSelect: true,
    options: [{ label: "Lint" }, { label: "Unit" }, { label: "E2E", description: "Slow, about 10 minutes" }],
  },
  { id: "notify", header: "Notify", question: "Who should hear about it?", options: [{ label: "Nobody" }, { label: "The team" }] },
];

async function ask(questions: unknown[], timeoutSeconds?: number): Promise<string> {
  return (await ui.client.request({ questions, ...(timeoutSeconds ? { timeoutSeconds } : {}) })).id;
}

/** Signed in through a `/#token=…` link, with the gateway link up. */
async function openUi(viewport = WIDE, colorScheme: "light" | "dark" = "light"): Promise<Page> {
  const page = await ui.newPage(viewport, colorScheme);
  await page.goto(`${ui.gateway.url}/#token=${ui.token}`);
  await page.locator('#status[data-state="open"]').waitFor();
  return page;
}

describe("Control UI accessibility (axe-core)", () => {
  it.each(["light", "dark"] as const)("the sign-in page, blank and with an error (%s)", async (scheme) => {
    const page = await ui.newPage(WIDE, scheme);
    await page.goto(`${ui.gateway.url}/`);
    await page.locator("#token").waitFor();
    expect(await seriousViolations(page)).toEqual([]);
    await page.fill("#token", "wrong-token-wrong-token");
    await page.click("button[type=submit]");
    await page.locator(".login-error").waitFor();
    expect(await seriousViolations(page)).toEqual([]);
    // The check itself sees a planted fault: an image with no text alternative is critical.
    await page.evaluate(() => document.querySelector("main")!.append(Object.assign(document.createElement("img"), { src: "/ui/icon.svg" })));
    expect((await seriousViolations(page)).map((v) => `${v.id} ${v.impact}`)).toEqual(["image-alt critical"]);
  });

  it.each(["light", "dark"] as const)("the docked panel with one question, chosen and refused, then collapsed (%s)", async (scheme) => {
    await ask([DEPLOY], 50); // under a minute left: the clock shows in the warning colour
    const page = await openUi(WIDE, scheme);
    await page.locator("#panel label.option", { hasText: "Production" }).waitFor();
    await page.locator("#panel time.expires-soon").waitFor();
    expect(await seriousViolations(page, "#panel")).toEqual([]);
    await page.locator("#panel label.option", { hasText: "Production" }).click();
    expect(await seriousViolations(page)).toEqual([]);
    await page.locator("#panel .other-input").fill("ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8");
    await page.locator("#panel").getByRole("button", { name: "Submit", exact: true }).click();
    await page.locator("#panel .form-error").waitFor();
    expect(await seriousViolations(page)).toEqual([]);
    await page.getByRole("button", { name: "Collapse question" }).click();
    await page.locator("#qbar").waitFor();
    expect(await seriousViolations(page)).toEqual([]);
  });

  it.each(["light", "dark"] as const)("the stepper, on every step, with several questions pending and a timeline of summaries (%s)", async (scheme) => {
    const answered = await ask([{ ...DEPLOY, id: "earlier", question: "Earlier?" }]);
    await ui.client.resolve({ id: answered, answers: { earlier: ["Production"] }, by: { surface: "telegram", userName: "Ada", via: "button" } });
    const skipped = await ask([{ ...DEPLOY, id: "skipped", question: "Skipped?" }]);
    await ui.client.resolve({ id: skipped, cancel: true, reason: "skipped", by: { surface: "web", via: "web" } });
    await ask(THREE);
    await new Promise((r) => setTimeout(r, 3)); // the page orders by creation time: THREE first, in the panel
    await ask([{ ...DEPLOY, id: "later", question: "Later?" }]);
    const page = await openUi(WIDE, scheme);
    const panel = page.locator("#panel");
    await panel.locator(".step", { hasText: "Question 1 of 3" }).waitFor();
    await page.locator('.entry[data-status="answered"]').waitFor();
    expect(await seriousViolations(page)).toEqual([]);
    await page.keyboard.press("Enter"); // nothing chosen: the error shows
    await panel.locator(".form-error").waitFor();
    expect(await seriousViolations(page, "#panel")).toEqual([]);
    await page.keyboard.press("2");
    await panel.locator(".step", { hasText: "Question 2 of 3" }).waitFor();
    await panel.locator("label.option", { hasText: "Unit" }).click();
    expect(await seriousViolations(page, "#panel")).toEqual([]);
    await panel.getByRole("button", { name: "Next: question 3 of 3", exact: true }).click();
    await panel.locator(".step", { hasText: "Question 3 of 3" }).waitFor();
    expect(await seriousViolations(page, "#panel")).toEqual([]);
  });

  it.each(["light", "dark"] as const)("the phone cards, one and several questions, beside summaries (%s)", async (scheme) => {
    const answered = await ask([{ ...DEPLOY, id: "earlier", question: "Earlier?" }]);
    await ui.client.resolve({ id: answered, answers: { earlier: ["My own words"] }, by: { surface: "web", via: "web" } });
    await ask(THREE.slice(0, 2));
    await ask([DEPLOY]);
    const page = await openUi(PHONE, scheme);
    await page.locator(".entry-card").nth(1).waitFor();
    expect(await seriousViolations(page)).toEqual([]);
    await page.locator(".entry-card").first().getByRole("button", { name: "Submit" }).click();
    await page.locator(".entry-card .form-error").waitFor();
    expect(await seriousViolations(page)).toEqual([]);
  });
});
