/**
 * Issue #24 item 8, against the real gateway process at LOG_LEVEL=debug with no GATEWAY_TOKEN: the token the gateway
 * generates under DATA_DIR is redacted from its log like a configured one. At debug the gateway logs question and
 * answer text, so a question holding the token (and an answer that is an option's label holding it) puts it in lines
 * that would carry it verbatim; none does, on the start that generated it nor on the next start that reads it back.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { spawnGatewayProcess, type ChildGateway } from "../helpers/cli.ts";
import { cleanup, freePort, rpc, tempDir } from "../helpers/gateway.ts";
import { waitUntil } from "../scenarios/tools.ts";

afterAll(cleanup);

/** Asks a question holding `token` everywhere an agent writes text, answers it with the label holding it. */
async function logTheToken(gateway: ChildGateway, token: string): Promise<void> {
  const call = async (method: string, params: unknown) => {
    const { body } = await rpc(gateway.url, method, params, { token });
    if (!body.ok) throw new Error(`${method} failed: ${body.error.code}: ${body.error.message}`);
    return body.payload;
  };
  const label = `Use ${token}`;
  const { id } = await call("question.request", {
    questions: [
      {
        id: "rotate",
        header: "Rotate",
        question: `Rotate the gateway token ${token} now?`,
        options: [{ label, description: `keeps ${token} until tomorrow` }, { label: "Rotate now" }],
      },
    ],
    timeoutSeconds: 900,
  });
  await call("question.resolve", { id, answers: { rotate: [label] } });
  // A typed reply holding it is refused as a credential; that must not log it either.
  const { id: typed } = await call("question.request", { questions: [{ id: "notes", header: "Notes", question: "Anything else?", options: [{ label: "No" }, { label: "Later" }] }], timeoutSeconds: 900 });
  await call("question.reply", { id: typed, text: `the token: ${token}` });
  // The lines that would have held it: the question's text and its answers, at debug.
  await waitUntil(() => /asked: text[\s\S]*resolved: answers/u.test(gateway.run.stdout()) || undefined, "the debug lines with question and answer text");
}

describe("the generated gateway token never appears in the gateway's log (issue #24 item 8)", () => {
  it("is redacted at LOG_LEVEL=debug, on the start that generates it and on the next one, which reads it back", async () => {
    const dataDir = tempDir();
    const env = { DATA_DIR: dataDir, LOG_LEVEL: "debug" };
    const first = await spawnGatewayProcess({ ...env, GATEWAY_PORT: String(await freePort()) });
    const token = readFileSync(join(dataDir, "gateway-token"), "utf8").trim();
    expect(token.length).toBeGreaterThanOrEqual(32);
    await logTheToken(first, token);
    await first.kill("SIGTERM");

    const second = await spawnGatewayProcess({ ...env, GATEWAY_PORT: String(await freePort()) });
    await logTheToken(second, token);
    await second.kill("SIGTERM");

    for (const [which, gateway] of [["first", first], ["second", second]] as const) {
      const output = gateway.run.stdout() + gateway.run.stderr();
      expect(output.includes(token), `the ${which} start's output`).toBe(false);
      // The lines were written, with the token replaced.
      expect(output, which).toMatch(/"msg":"asked: text"/u);
      expect(output, which).toContain("Rotate the gateway token [redacted] now?");
      expect(output, which).toContain("Use [redacted]");
    }
  }, 60_000);
});
