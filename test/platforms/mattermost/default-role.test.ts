/**
 * A bot account with Mattermost's default role (issue 37 §9): the server refuses it ephemeral posts
 * (create_post_ephemeral) and deleting others' posts (delete_others_posts) with 403, as a real one does. A note for one
 * person then goes as a reply in their message's thread, never with their words in it, and the bot says once which
 * permission would keep notes private and let it delete.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TEXTS } from "../../../src/bridge/index.ts";
import { toMattermostText } from "../../../src/platforms/mattermost/escaping.ts";
import { rpcOk } from "../../helpers/gateway.ts";
import { waitUntil } from "../../scenarios/tools.ts";
import { createMattermostHarness, type MattermostHarness } from "./harness.ts";

const single = {
  id: "deploy_target",
  header: "Deployment target",
  question: "Where should I deploy?",
  options: [{ label: "Staging (Recommended)" }, { label: "Production" }],
};

const CREDENTIAL = "ghp_abcdefghijklmnopqrstuvwxyz0123456789";
const OTHER_CREDENTIAL = "sk-live_zyxwvutsrqponmlkjihgfedcba9876";

describe("mattermost: a bot account with the default role", () => {
  let h: MattermostHarness;
  const logged: Array<{ message: string; error: unknown }> = [];
  beforeAll(async () => {
    h = await createMattermostHarness({ log: (message, error) => void logged.push({ message, error }) });
  }, 60_000);
  afterAll(async () => {
    await h?.close();
  });

  const calls = (method: string, path: RegExp) => h.fake.calls.filter((c) => c.method === method && path.test(c.path));
  const warnings = (permission: string) => logged.filter((l) => l.message.includes(permission));
  const noteIn = (channel: string, after: number) =>
    waitUntil(() => h.fake.botPosts(channel).slice(after).find((p) => p.message === toMattermostText(TEXTS.credentialNotDeleted)), "the note about the credential");

  it("a credential typed in a prompt's thread: both calls refused, the note goes in that thread (without the credential) to delete it and rotate it; the permissions are named once", async () => {
    const id = await h.ask([single], { chat: h.chat });
    const copy = await h.promptOf(id);
    const prompt = h.post(copy);
    const [ephemeralCalls, deleteCalls, posts] = [calls("POST", /^\/api\/v4\/posts\/ephemeral$/).length, calls("DELETE", /^\/api\/v4\/posts\//).length, h.fake.botPosts(h.chat).length];

    const sent = await h.type(h.chat, h.person, CREDENTIAL, { replyTo: copy });
    const note = await noteIn(h.chat, posts);
    expect(note.root_id).toBe(prompt.id);
    expect(note.message).toMatch(/still visible.*delete it.*rotate/su);
    // Both calls were made, and refused as Mattermost refuses them.
    expect(calls("DELETE", /^\/api\/v4\/posts\//).slice(deleteCalls).map((c) => c.status)).toEqual([403]);
    expect(calls("POST", /^\/api\/v4\/posts\/ephemeral$/).slice(ephemeralCalls).map((c) => c.status)).toEqual([403]);
    expect(sent.deleted()).toBe(false);
    expect(h.fake.ephemerals).toEqual([]);
    // The credential is in no post of the bot's, nor in the record.
    for (const post of h.fake.posts.values()) if (post.user_id === h.fake.bot.id) expect(post.message).not.toContain("abcdefghijklmnop");
    expect(JSON.stringify(await rpcOk(h.gatewayUrl(), "question.get", { id }))).not.toContain("abcdefghijklmnop");
    expect((await rpcOk(h.gatewayUrl(), "question.get", { id })).status).toBe("pending");

    // Said once each, with the permission and the role that has it, and the server's refusal (a warning).
    expect(warnings("create_post_ephemeral")).toEqual([
      { message: expect.stringMatching(/may not post ephemeral messages.*thread.*create_post_ephemeral.*System Admin/u), error: expect.objectContaining({ status_code: 403 }) },
    ]);
    expect(warnings("delete_others_posts")).toEqual([
      { message: expect.stringMatching(/may not delete others' posts.*delete_others_posts.*System Admin/u), error: expect.objectContaining({ status_code: 403 }) },
    ]);

    // A second one gets its note too, and the log says nothing more.
    const again = h.fake.botPosts(h.chat).length;
    await h.type(h.chat, h.colleague, OTHER_CREDENTIAL, { replyTo: copy });
    expect((await noteIn(h.chat, again)).root_id).toBe(prompt.id);
    expect(h.fake.botPosts(h.chat).every((p) => !p.message.includes("zyxwvutsrqpon"))).toBe(true);
    expect([warnings("create_post_ephemeral").length, warnings("delete_others_posts").length]).toEqual([1, 1]);
    expect(logged.filter((l) => /could not (send an ephemeral|delete)/u.test(l.message))).toEqual([]);
    await rpcOk(h.gatewayUrl(), "question.resolve", { id, cancel: true, reason: "cancelled" });
  });

  it("in a DM the note is one more message there, and a typed answer still answers", async () => {
    const id = await h.ask([single], { chat: h.person.id });
    const copy = await h.promptOf(id, h.person.id);
    const dm = h.channelOf(h.person.id);
    const posts = h.fake.botPosts(dm).length;
    await h.type(h.person.id, h.person, CREDENTIAL);
    const note = await noteIn(dm, posts);
    expect(note.root_id).toBe("");
    expect(h.fake.botPosts(dm).every((p) => !p.message.includes("abcdefghijklmnop"))).toBe(true);
    await h.type(h.person.id, h.person, "2");
    expect(await rpcOk(h.gatewayUrl(), "question.waitAnswer", { id, timeoutMs: 8_000 })).toMatchObject({ answers: { answers: { deploy_target: ["Production"] } } });
    expect(copy.ref.startsWith(`${dm}:`)).toBe(true);
  });

  it("any other error on the ephemeral post is logged, and nothing goes in public", async () => {
    const id = await h.ask([single], { chat: h.chat });
    const copy = await h.promptOf(id);
    const posts = h.fake.botPosts(h.chat).length;
    h.fake.failNext("POST", "/api/v4/posts/ephemeral", { status: 500 });
    await h.type(h.chat, h.person, CREDENTIAL, { replyTo: copy });
    await waitUntil(() => logged.find((l) => /could not send an ephemeral message/u.test(l.message)), "the failure logged");
    expect(h.fake.botPosts(h.chat).slice(posts)).toEqual([]);
    await rpcOk(h.gatewayUrl(), "question.resolve", { id, cancel: true, reason: "cancelled" });
  });
});
