import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rpcOk, sleep } from "../../helpers/gateway.ts";
import { createSlackHarness, SLACK_TEST_TOKENS, type SlackHarness } from "./harness.ts";
import { postSigned, slackRequestBody, slackSignature } from "./slack-signing.ts";
import { scenarioTools, waitUntil } from "../../scenarios/tools.ts";
import type { PromptCopy } from "../../scenarios/harness.ts";

const single = {
  id: "deploy_target",
  header: "Deployment target",
  question: "Where should I deploy?",
  options: [{ label: "Staging (Recommended)" }, { label: "Production" }],
};

/** The Slack bot in HTTP mode: Bolt's own receiver on a port, verifying every request's signature. */
describe("slack: HTTP mode with signed requests", () => {
  let h: SlackHarness;
  beforeAll(async () => {
    h = await createSlackHarness("http");
  }, 60_000);
  afterAll(async () => {
    await h?.close();
  });

  const { result, status, summaryOf } = scenarioTools(() => h);

  /** Everything a forged or stale request could have changed. */
  const snapshot = (copy: PromptCopy) => ({
    calls: h.fake.calls.length,
    ephemerals: h.fake.ephemerals.length,
    views: h.fake.views.length,
    edits: h.message(copy).edits,
  });

  it("listens on the port it was given (0 picks one) and answers Slack's URL verification", async () => {
    expect(h.eventsUrl()).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/slack\/events$/);
    const { body, contentType } = slackRequestBody("events_api", { token: "t", challenge: "c-123", type: "url_verification" });
    const res = await postSigned(h.eventsUrl(), SLACK_TEST_TOKENS.signingSecret, body, contentType);
    expect(res.status).toBe(200);
    expect(res.text).toContain("c-123");
  });

  it("a tap answers", async () => {
    const id = await h.ask([single], { chat: h.chat });
    const copy = await h.promptOf(id);
    expect(copy.buttons).toEqual(["Staging (Recommended)", "Production", "Other…", "Skip"]);
    expect(await h.press(copy, 1, h.person)).toBe("Answer submitted.");
    expect(await result(id)).toMatchObject({ status: "answered", answers: { answers: { deploy_target: ["Production"] } } });
    await summaryOf(copy, /Production — answered in Slack by Ada/);
  });

  it("a typed reply in the prompt's thread answers, and the bot replies in that thread", async () => {
    const id = await h.ask([single], { chat: h.chat });
    const copy = await h.promptOf(id);
    await h.type(h.chat, h.person, "staging", { replyTo: copy });
    expect(await result(id)).toMatchObject({ answers: { answers: { deploy_target: ["Staging (Recommended)"] } } });
    const reply = await waitUntil(() => h.fake.botMessages(h.chat).find((m) => !m.prompt && /Recorded: Staging/.test(m.text)), "the confirmation");
    expect(reply.thread_ts).toBe(h.message(copy).ts);
  });

  it("Other… opens the modal and its submission answers", async () => {
    const id = await h.ask([single], { chat: h.chat });
    const copy = await h.promptOf(id);
    await h.answerOther(copy, h.person, "Canary in eu-west first");
    expect(await result(id)).toMatchObject({ status: "answered", answers: { answers: { deploy_target: ["Canary in eu-west first"] } } });
    await summaryOf(copy, /Canary in eu-west first/);
  });

  it("a bad signature gets 401 and changes nothing", async () => {
    const id = await h.ask([single], { chat: h.chat });
    const copy = await h.promptOf(id);
    await sleep(100);
    const before = snapshot(copy);
    const press = slackRequestBody("interactive", h.fake.pressPayload(h.message(copy), h.message(copy).sentBlocks![1].elements[0].action_id, h.person).payload);
    const typed = slackRequestBody("events_api", h.fake.typePayload(h.chat, h.person, "2", h.message(copy).ts).payload);
    for (const { body, contentType } of [press, typed]) {
      expect((await postSigned(h.eventsUrl(), "not-the-signing-secret", body, contentType)).status).toBe(401);
      expect((await postSigned(h.eventsUrl(), SLACK_TEST_TOKENS.signingSecret, body, contentType, { signature: "v0=" + "0".repeat(64) })).status).toBe(401);
      // Signed correctly, but for another body (the request was tampered with on the way).
      const ts = Math.floor(Date.now() / 1000);
      const other = slackSignature(SLACK_TEST_TOKENS.signingSecret, ts, body.replace("U0ADA", "U0GRACE"));
      expect((await postSigned(h.eventsUrl(), SLACK_TEST_TOKENS.signingSecret, body, contentType, { timestampSec: ts, signature: other })).status).toBe(401);
    }
    await sleep(300);
    expect(snapshot(copy)).toEqual(before);
    expect(await status(id)).toBe("pending");
    // The same requests, signed properly, go through.
    expect((await postSigned(h.eventsUrl(), SLACK_TEST_TOKENS.signingSecret, press.body, press.contentType)).status).toBe(200);
    expect(await result(id)).toMatchObject({ answers: { answers: { deploy_target: ["Staging (Recommended)"] } } });
  });

  it("a timestamp more than 5 minutes old gets 401 and changes nothing, even when signed", async () => {
    const id = await h.ask([single], { chat: h.chat });
    const copy = await h.promptOf(id);
    await sleep(100);
    const before = snapshot(copy);
    const stale = Math.floor(Date.now() / 1000) - 5 * 60 - 10;
    const press = slackRequestBody("interactive", h.fake.pressPayload(h.message(copy), h.message(copy).sentBlocks![1].elements[1].action_id, h.person).payload);
    const typed = slackRequestBody("events_api", h.fake.typePayload(h.chat, h.person, "2", h.message(copy).ts).payload);
    for (const { body, contentType } of [press, typed]) {
      expect((await postSigned(h.eventsUrl(), SLACK_TEST_TOKENS.signingSecret, body, contentType, { timestampSec: stale })).status).toBe(401);
    }
    await sleep(300);
    expect(snapshot(copy)).toEqual(before);
    expect(await status(id)).toBe("pending");
    await rpcOk(h.gatewayUrl(), "question.resolve", { id, cancel: true, reason: "cancelled" });
  });

  it("acknowledges a press at once even while the gateway is down, then says it was not submitted", async () => {
    const id = await h.ask([single], { chat: h.chat });
    const copy = await h.promptOf(id);
    await h.stopGateway();
    try {
      const before = h.fake.ephemeralsTo(h.person.id).length;
      const started = Date.now();
      const { status } = await h.fake.press(h.message(copy), 0, h.person);
      expect(status).toBe(200);
      expect(Date.now() - started).toBeLessThan(1_000); // Slack allows 3 s
      expect((await h.fake.waitForEphemeral(h.person.id, before, 15_000)).text).toMatch(/^Not submitted: the answer service is unreachable/);
    } finally {
      await h.startGateway();
    }
    expect(await h.press(copy, 0, h.person)).toBe("Answer submitted.");
    expect(await result(id)).toMatchObject({ status: "answered" });
    await summaryOf(copy, /Staging/);
  });
});
