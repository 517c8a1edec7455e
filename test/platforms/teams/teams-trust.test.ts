/**
 * Issue 37 §3: a token from the bot's own tenant re-pointed a person's conversation. The SDK accepts any token for
 * the app from the tenant's Entra authority, and such a token names no `serviceurl`, so its activity could carry any
 * serviceUrl and any `from`: the bot stored it as that person's conversation, sent their next prompt (and its Bot
 * Connector token) there, and took the attacker's answers as theirs. Each attack runs against the real bot and SDK
 * with the fake's tenant tokens (accepted by the SDK: HTTP 200), and comes to nothing.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTeamsReferenceStore } from "../../../bots/teams/references.ts";
import { rpcOk, sleep } from "../../helpers/gateway.ts";
import { waitUntil } from "../../scenarios/bot-scenarios.ts";
import { createTeamsHarness, type TeamsHarness } from "./harness.ts";
import type { TokenIssuer } from "./fake-api.ts";

const single = { id: "deploy_target", header: "Target", question: "Where should I deploy?", options: [{ label: "Staging" }, { label: "Production" }] };

/** The attacker's "Bot Connector": it records every request (with the bot's token, were it ever sent one). */
async function startAttacker() {
  const requests: Array<{ method: string; url: string; authorization?: string }> = [];
  const server: Server = createServer((req, res) => {
    requests.push({ method: req.method ?? "", url: req.url ?? "", ...(req.headers.authorization ? { authorization: req.headers.authorization } : {}) });
    res.writeHead(201, { "content-type": "application/json" }).end(JSON.stringify({ id: "stolen" }));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    requests,
    /** On the loopback like the fake, so on the tests' TEAMS_SERVICE_URL_HOSTS: only its port differs. */
    onListedHost: `http://127.0.0.1:${port}/attacker/`,
    /** The same server by a host that is not on the list. */
    offList: `http://localhost:${port}/attacker/`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describe("teams: issue 37 §3, who may point a conversation somewhere and speak for a person", () => {
  let h: TeamsHarness;
  let attacker: Awaited<ReturnType<typeof startAttacker>>;
  beforeAll(async () => {
    h = await createTeamsHarness();
    attacker = await startAttacker();
  }, 60_000);
  afterAll(async () => {
    await h?.close();
    await attacker?.close();
  });

  const result = (id: string) => rpcOk(h.gatewayUrl(), "question.waitAnswer", { id, timeoutMs: 8_000 });
  const status = async (id: string) => (await rpcOk(h.gatewayUrl(), "question.get", { id })).status as string;
  const cancel = (id: string) => rpcOk(h.gatewayUrl(), "question.resolve", { id, cancel: true, reason: "cancelled" });
  const tenants: TokenIssuer[] = ["tenant-v1", "tenant-v2"];

  it.each(tenants)("a %s token re-points no one: the SDK takes it, the person's next prompt still goes to their own chat", async (issuer) => {
    // The attacker, in the tenant, claims to be Ada writing from the attacker's own chat (Mallory's), on its own host.
    const own = h.fake.personalOf(h.stranger.id);
    for (const serviceUrl of [attacker.onListedHost, h.fake.origin]) {
      const hello = h.fake.activityIn(own, h.person.id, { type: "message", text: "hello", serviceUrl });
      expect(await h.fake.deliver(hello, "valid", { issuer })).toBe(200);
    }
    await sleep(200);
    const id = await h.ask([single], { chat: h.person.id });
    const copy = await h.promptOf(id, h.person.id);
    expect(h.message(copy).conversation).toBe(h.fake.personalOf(h.person.id));
    expect(h.fake.botMessages(own).filter((m) => m.card)).toEqual([]);
    expect(attacker.requests).toEqual([]);
    await cancel(id);
  });

  it.each(tenants)("a %s token cannot answer as the person: a press or a message with their object id records nothing", async (issuer) => {
    const id = await h.ask([single], { chat: h.chat });
    const copy = await h.promptOf(id);
    const card = h.message(copy);
    const press = h.fake.activityIn(h.chat, h.person.id, { type: "message", replyToId: card.id, value: card.card.actions[1].data, conversation: { id: `${h.chat};messageid=${card.id}`, conversationType: "channel", tenantId: h.fake.tenantId, isGroup: true } });
    expect(await h.fake.deliver(press, "valid", { issuer })).toBe(200);
    const typed = h.fake.activityIn(h.chat, h.person.id, { type: "message", text: "<at>Ask Bot</at> Production", entities: [{ type: "mention", text: "<at>Ask Bot</at>", mentioned: h.fake.botAccount }] });
    expect(await h.fake.deliver(typed, "valid", { issuer })).toBe(200);
    await sleep(400);
    expect(await status(id)).toBe("pending");
    // The same press from Teams (a Bot Framework token) is the person's.
    expect(await h.press(copy, 1, h.person)).toBe("Answer submitted.");
    expect(await result(id)).toMatchObject({ status: "answered", answers: { answers: { deploy_target: ["Production"] } } });
  });

  it("a tenant token installs nothing: a conversation it announces has no reference", async () => {
    const sneaky = "19:tenant-installed@thread.tacv2";
    h.fake.addConversation({ id: sneaky, type: "channel" });
    const install = { ...h.fake.activityIn(h.chat, h.person.id, { type: "conversationUpdate", membersAdded: [h.fake.botAccount] }), conversation: { id: sneaky, conversationType: "channel", tenantId: h.fake.tenantId } };
    expect(await h.fake.deliver(install, "valid", { issuer: "tenant-v1" })).toBe(200);
    await sleep(200);
    expect(await result(await h.ask([single], { chat: sneaky }))).toMatchObject({ status: "delivery_failed", reason: expect.stringMatching(/no conversation reference/) });
  });

  it("a token that names no service URL cannot move a known conversation to another origin, even one on a listed host", async () => {
    // A Bot Framework token without its serviceurl: the person is the person, but the service URL is nobody's word.
    const own = h.fake.personalOf(h.person.id);
    const id = await h.ask([single], { chat: h.person.id });
    await h.promptOf(id, h.person.id);
    const answer = h.fake.activityIn(own, h.person.id, { type: "message", text: "Production", serviceUrl: attacker.onListedHost });
    expect(await h.fake.deliver(answer, "valid", { serviceUrlClaim: null })).toBe(200);
    expect(await result(id)).toMatchObject({ status: "answered", answers: { answers: { deploy_target: ["Production"] } } });
    // The confirmation, and the next prompt, go where the conversation was: the attacker hears nothing.
    await waitUntil(() => h.fake.botMessages(own).find((m) => /Recorded: Production/.test(m.text ?? "")), "the confirmation in the person's chat");
    const channel = h.fake.activityIn(h.chat, h.person.id, { type: "conversationUpdate", membersAdded: [h.fake.botAccount], serviceUrl: attacker.onListedHost });
    expect(await h.fake.deliver(channel, "valid", { serviceUrlClaim: null })).toBe(200);
    const next = await h.ask([single], { chat: h.chat });
    await h.promptOf(next);
    expect(attacker.requests).toEqual([]);
    await cancel(next);
  });

  it("a serviceUrl off TEAMS_SERVICE_URL_HOSTS is refused (400), even from the Bot Framework naming it; a stored one gets nothing sent", async () => {
    const rogue = "19:off-list@thread.tacv2";
    h.fake.addConversation({ id: rogue, type: "channel" });
    const install = (serviceUrl: string) => ({ ...h.fake.activityIn(h.chat, h.person.id, { type: "conversationUpdate", membersAdded: [h.fake.botAccount], serviceUrl }), conversation: { id: rogue, conversationType: "channel", tenantId: h.fake.tenantId } });
    expect(await h.fake.deliver(install(attacker.offList))).toBe(400); // the token's serviceurl names that host: still not a Bot Connector
    expect(await h.fake.deliver(install(attacker.offList), "valid", { issuer: "tenant-v1" })).toBe(400);
    expect(await h.fake.deliver(install("https://smba.trafficmanager.net.attacker.example/"))).toBe(400);
    // A reference on such a host, kept before the list was set (or written by hand): the prompt fails at once.
    createTeamsReferenceStore(h.config.DATA_DIR, () => {}).remember({ serviceUrl: attacker.offList, channelId: "msteams", conversation: { id: rogue, conversationType: "channel", tenantId: h.fake.tenantId }, bot: h.fake.botAccount, capturedAtMs: Date.now() });
    expect(await result(await h.ask([single], { chat: rogue }))).toMatchObject({ status: "delivery_failed", reason: expect.stringMatching(/not on TEAMS_SERVICE_URL_HOSTS/) });
    expect(attacker.requests).toEqual([]);
  });
});
