/**
 * A person in the Control UI, in a real browser (issue 29 §1): alice signs in with the link `token create --role
 * person --name alice` printed, sees her question and not bob's, answers, and the summary says "by alice".
 */
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectGateway, type GatewayClient } from "../../src/client/index.ts";
import { askUser } from "../../src/client/sdk.ts";
import { launchBrowser } from "../helpers/browser.ts";
import { cleanup, spawnCli, startTestGateway, TOKEN, type TestGateway } from "../helpers/gateway.ts";

let browser: Browser;
let gateway: TestGateway;
let client: GatewayClient;

beforeAll(async () => {
  browser = await launchBrowser();
  gateway = await startTestGateway();
  client = await connectGateway({ url: gateway.url, token: TOKEN });
}, 60_000);

afterAll(async () => {
  client?.close();
  await browser?.close();
  await gateway?.close();
  await cleanup();
});

const question = (id: string, text: string) => ({ id, header: "Deploy", question: text, options: [{ label: "Staging" }, { label: "Production" }] });

describe("a person in the Control UI", () => {
  it("alice signs in from her /#token= link, sees only her questions, answers, and the summary says by alice", async () => {
    const created = await spawnCli(["token", "create", "--role", "person", "--name", "alice"], { DATA_DIR: gateway.dataDir, GATEWAY_PORT: String(gateway.port) }).exited;
    expect(created.code).toBe(0);
    const [, link] = created.stdout.trim().split("\n");
    expect(link).toMatch(new RegExp(`^http://127\\.0\\.0\\.1:${gateway.port}/#token=aub_`));

    let accepted!: (id: string) => void;
    const asked = new Promise<string>((resolve) => (accepted = resolve));
    const result = askUser(client, { questions: [question("deploy", "Where should alice deploy?")] }, { targets: [{ surface: "web", users: ["alice"] }], onRequested: (q) => accepted(q.id) });
    const forBob = await client.request({ questions: [question("deploy", "Where should bob deploy?")], targets: [{ surface: "web", users: ["bob"] }] });

    const context = await browser.newContext({ viewport: { width: 1200, height: 800 } });
    context.setDefaultTimeout(10_000);
    try {
      const page = await context.newPage();
      await page.goto(link!);
      await page.locator('#status[data-state="open"]').waitFor();
      expect(page.url()).not.toContain("token");
      await page.locator("#panel", { hasText: "Where should alice deploy?" }).waitFor();
      expect(await page.locator("body").textContent()).not.toContain("Where should bob deploy?");
      await page.locator("#panel label.option", { hasText: "Production" }).click();
      await page.locator("#panel").getByRole("button", { name: "Submit", exact: true }).click();
      expect(await result).toMatchObject({ status: "answered", answers: { answers: { deploy: ["Production"] } }, answeredBy: { surface: "web", user: "alice" } });
      const entry = page.locator(`.entry[data-id="${await asked}"][data-status="answered"]`);
      await entry.waitFor();
      expect(await entry.textContent()).toContain("Answered on the web by alice");
      expect((await client.get(forBob.id)).status).toBe("pending");
    } finally {
      await context.close();
    }
  });
});
