/** The store wrapper that puts answer links on every record the service reads (src/gateway/links/store-links.ts). */
import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { createAnswerLinks, loadLinkKey } from "../../../src/gateway/links/answer-links.ts";
import { withAnswerLinks } from "../../../src/gateway/links/store-links.ts";
import { createMemoryStore } from "../../../src/gateway/store/index.ts";
import { pendingRecord } from "./store-contract.ts";

async function linkedStore(base = "https://ask.example.com/") {
  const inner = createMemoryStore();
  const links = createAnswerLinks({ key: await loadLinkKey(inner), baseUrl: () => base });
  return { inner, links, store: withAnswerLinks(inner, links.linksFor) };
}

describe("withAnswerLinks", () => {
  it("sets the links on the created record, stores none, and adds them to every read, outcome and list", async () => {
    const { inner, store } = await linkedStore();
    const record = pendingRecord("q1", { linksRequested: true, targets: [{ surface: "telegram", chat: "1" }, { surface: "web" }] });
    await store.create(record);
    expect(record.links?.map((l) => l.target)).toEqual(["telegram:1", "web"]);
    expect(record.links![0]!.url).toMatch(/^https:\/\/ask\.example\.com\/a\/[A-Za-z0-9_-]+$/);
    expect(Object.hasOwn((await inner.get("q1"))!, "links")).toBe(false);
    expect((await store.get("q1"))!.links).toEqual(record.links);
    expect((await store.list({}))[0]!.links).toEqual(record.links);
    const outcome = await store.resolve("q1", { status: "cancelled", reason: "cancelled", resolvedAtMs: 2_000 });
    expect(outcome.ok && outcome.record.links).toEqual(record.links);
  });

  it("gives a record that asked for none no links, and drops links a caller tried to store", async () => {
    const { inner, store } = await linkedStore();
    await store.create(pendingRecord("q2", { links: [{ target: "web", url: "https://evil.example/a/x" }] }));
    expect(Object.hasOwn((await store.get("q2"))!, "links")).toBe(false);
    expect(Object.hasOwn((await inner.get("q2"))!, "links")).toBe(false);
  });

  it("links an escalated target once the step is taken, and the key stays the same for the store", async () => {
    const { inner, store, links } = await linkedStore();
    await store.create(pendingRecord("q3", { linksRequested: true, escalate: [{ afterSeconds: 1, targets: [{ surface: "slack", chat: "C1" }] }] }));
    const taken = await store.markEscalated("q3", 0, 2_000);
    expect(taken!.links!.map((l) => l.target)).toEqual(["web", "slack:C1"]);
    const token = taken!.links![1]!.url.split("/a/")[1];
    expect(links.verify(token)).toEqual({ questionId: "q3", targetIndex: 1 });
    const again = createAnswerLinks({ key: await loadLinkKey(inner), baseUrl: () => "http://other" });
    expect(again.verify(token)).toEqual({ questionId: "q3", targetIndex: 1 });
    const stranger = createAnswerLinks({ key: randomBytes(32), baseUrl: () => "http://other" });
    expect(stranger.verify(token)).toBeUndefined();
  });
});
