/**
 * The answer page in a real browser (Chromium through playwright-core): a per-option link opens with that option
 * pre-selected, Confirm answers, and the page then shows the summary. JavaScript is off: the page needs none.
 */
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { optionLinkUrl } from "../../src/record/answer-links.ts";
import { cleanup, rpcOk, startTestGateway, twoQuestions, type TestGateway } from "../helpers/gateway.ts";
import { launchBrowser } from "../helpers/browser.ts";
import { seriousViolations } from "../helpers/web-page.ts";

let browser: Browser;
let gateway: TestGateway;
beforeAll(async () => {
  [browser, gateway] = await Promise.all([launchBrowser(), startTestGateway()]);
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await gateway?.close();
  await cleanup();
});

describe("the answer page in a browser", () => {
  it("opens a per-option link pre-selected, confirms, and shows the summary (JavaScript off, no CSP violation)", async () => {
    const asked = await rpcOk(gateway.url, "question.request", {
      questions: [
        {
          id: "deploy_target",
          header: "Deploy",
          question: "Where should I deploy <now>?",
          options: [{ label: "Staging (Recommended)", description: "the safe one" }, { label: "Production" }],
        },
      ],
      targets: [{ surface: "telegram", chat: "42", users: ["7"] }],
      links: true,
    });
    const context = await browser.newContext({ javaScriptEnabled: false });
    const page = await context.newPage();
    const violations: string[] = [];
    page.on("console", (message) => {
      if (/Content Security Policy|Refused to/i.test(message.text())) violations.push(message.text());
    });
    await page.goto(optionLinkUrl(asked.links[0].url, "deploy_target", 1));
    await expect.poll(() => page.getByRole("radio", { name: /Production/ }).isChecked()).toBe(true);
    expect(await page.getByRole("radio", { name: /Staging/ }).isChecked()).toBe(false);
    expect(await page.getByText("Where should I deploy <now>?").count()).toBe(1);
    expect(await page.getByText("the safe one").count()).toBe(1);
    // The stylesheet applied (the card is styled), under the strict policy.
    expect(await page.locator(".answer-card").evaluate((el) => getComputedStyle(el).borderRadius)).toBe("12px");
    expect((await rpcOk(gateway.url, "question.get", { id: asked.id })).status).toBe("pending");
    await page.getByRole("button", { name: "Confirm" }).click();
    await page.getByText("Answered in Telegram by 7").waitFor();
    expect(await page.locator("form").count()).toBe(0);
    expect(await page.getByText("Production").count()).toBeGreaterThan(0);
    expect(await rpcOk(gateway.url, "question.get", { id: asked.id })).toMatchObject({ status: "answered", answers: { deploy_target: ["Production"] }, by: { surface: "telegram", user: "7", via: "web" } });
    // Back to the per-option link: it is never kept (no-store), so it shows the outcome, not a form.
    await page.goBack();
    await page.getByText("Answered in Telegram by 7").waitFor();
    expect(await page.locator("form").count()).toBe(0);
    expect(violations).toEqual([]);
    await context.close();
  });

  it("answers several questions on one page, multi-select as checkboxes, and own words", async () => {
    const asked = await rpcOk(gateway.url, "question.request", twoQuestions({ targets: [{ surface: "web" }], links: true }));
    const context = await browser.newContext({ javaScriptEnabled: false });
    const page = await context.newPage();
    await page.goto(asked.links[0].url);
    await page.getByRole("button", { name: "Submit" }).click();
    // Nothing chosen: the form comes back with the error on the first question.
    await page.getByText("Choose an option, or type your own answer.").waitFor();
    await page.getByRole("textbox", { name: "Other" }).first().fill("Canary");
    await page.getByRole("checkbox", { name: /Lint/ }).check();
    await page.getByRole("checkbox", { name: /E2E/ }).check();
    await page.getByRole("button", { name: "Submit" }).click();
    await page.getByText("Answered on the web").waitFor();
    expect(await rpcOk(gateway.url, "question.get", { id: asked.id })).toMatchObject({ answers: { env: ["Canary"], checks: ["Lint", "E2E"] } });
    await context.close();
  });

  it.each(["light", "dark"] as const)("has no serious accessibility violation (axe-core, %s): the form with an error, the ended page, the invalid link", async (colorScheme) => {
    const asked = await rpcOk(gateway.url, "question.request", twoQuestions({ targets: [{ surface: "web" }], links: true }));
    // axe is injected as a script, which the page's policy refuses: this context bypasses it (as the Control UI's do).
    const context = await browser.newContext({ bypassCSP: true, colorScheme });
    const page = await context.newPage();
    await page.goto(asked.links[0].url);
    expect(await seriousViolations(page)).toEqual([]);
    await page.getByRole("button", { name: "Submit" }).click();
    await page.getByText("Choose an option, or type your own answer.").waitFor();
    expect(await seriousViolations(page)).toEqual([]);
    await page.getByRole("button", { name: "Skip" }).click();
    await page.getByText("Skipped on the web").waitFor();
    expect(await seriousViolations(page)).toEqual([]);
    await page.goto(`${gateway.url}/a/not-a-token`);
    expect(await seriousViolations(page)).toEqual([]);
    await context.close();
  });
});
