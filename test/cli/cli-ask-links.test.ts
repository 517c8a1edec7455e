/** `ask --links`: the CLI prints each target's answer link, and the question is answered through one of them. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { main } from "../../src/cli/main.ts";
import { ASK_HELP } from "../../src/cli/ask.ts";
import { cleanup, startTestGateway, tempDir, TOKEN, type TestGateway } from "../helpers/gateway.ts";
import { waitUntil } from "../scenarios/tools.ts";

let gateway: TestGateway;
let env: Record<string, string>;
beforeAll(async () => {
  gateway = await startTestGateway();
  env = { GATEWAY_URL: gateway.url, GATEWAY_TOKEN: TOKEN, DATA_DIR: tempDir("aub-cli-links-") };
});
afterAll(async () => {
  await gateway.close();
  await cleanup();
});

describe("ask --links", () => {
  it("is in ask --help", () => {
    expect(ASK_HELP).toMatch(/--links\s+make an answer link for every target/);
  });

  it("prints each target's link on stderr; answering through one ends the ask with that target as who answered", async () => {
    const err: string[] = [];
    let stdout = "";
    const argv = ["ask", "--question", "Where should I deploy?", "--option", "Staging", "--option", "Production", "--id", "deploy_target", "--to", "telegram:42:7", "--to", "web", "--links", "--session", "cli_links"];
    const asking = main(argv, env, { out: (s) => void (stdout += `${s}\n`), err: (s) => void err.push(s) });
    await waitUntil(() => err.filter((line) => line.startsWith("Answer link for ")).length === 2, "two answer links on stderr");
    const links = err.flatMap((line) => {
      const match = /^Answer link for (\S+): (\S+)$/.exec(line);
      return match ? [{ target: match[1]!, url: match[2]! }] : [];
    });
    expect(links.map((l) => l.target)).toEqual(["telegram:42:7", "web"]);
    const url = links[0]!.url;
    expect(url).toMatch(new RegExp(`^${gateway.url}/a/`));
    const page = await fetch(url);
    const csrf = /name="csrf" value="([^"]+)"/.exec(await page.text())![1]!;
    const res = await fetch(url, {
      method: "POST",
      redirect: "manual",
      headers: { "content-type": "application/x-www-form-urlencoded", cookie: page.headers.get("set-cookie")!.split(";")[0]!, "sec-fetch-site": "same-origin" },
      body: new URLSearchParams({ "a:deploy_target": "1", action: "answer", csrf }),
    });
    expect(res.status).toBe(303);
    expect(await asking).toBe(0);
    expect(JSON.parse(stdout)).toEqual({ status: "answered", answers: { answers: { deploy_target: ["Production"] } }, answeredBy: { surface: "telegram", via: "web", user: "7", chat: "42" } });
    // `list --json` has the record's links too.
    let listed = "";
    await main(["list", "--json", "--session", "cli_links"], env, { out: (s) => void (listed += s), err: () => {} });
    expect(JSON.parse(listed)[0].links).toEqual(links);
  });

  it("prints no links without --links", async () => {
    const err: string[] = [];
    const asking = main(["ask", "--question", "Deploy?", "--option", "A", "--option", "B", "--to", "web", "--timeout", "1"], { ...env, ASK_TEST_MIN_TIMEOUT_SECONDS: "1" }, { out: () => {}, err: (s) => void err.push(s) });
    await asking;
    expect(err.some((line) => line.startsWith("Answer link"))).toBe(false);
  });
});
