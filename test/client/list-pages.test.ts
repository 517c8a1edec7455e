/**
 * question.list in pages (issue #17 §6): the opaque cursor, how a page is cut (count and size), the protocol over a
 * real in-process gateway, and the client's `pages` / `listAll`.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectGateway, type GatewayClient } from "../../src/client/index.ts";
import {
  decodeListCursor,
  encodeListCursor,
  LIST_DEFAULT_LIMIT,
  LIST_MAX_PAGE,
  LIST_PAGE_MAX_CHARS,
  listPage,
  type ListFilter,
} from "../../src/protocol/list-filter.ts";
import type { QuestionRecord } from "../../src/record/record.ts";
import { pendingRecord } from "../gateway/store/store-contract.ts";
import { oneQuestion, openTransport, RawWs, TOKEN, useTestGateway, type Transport } from "../helpers/gateway.ts";

const b64 = (text: string) => Buffer.from(text).toString("base64url");

describe("the list cursor", () => {
  it.each([
    [{ createdAtMs: 0, id: "a" }],
    [{ createdAtMs: 1_760_000_000_123, id: "Zq3_-x9" }],
    [{ createdAtMs: 5, id: "é/\"quoted\" id with spaces" }],
    [{ createdAtMs: Number.MAX_SAFE_INTEGER, id: "x".repeat(128) }],
  ])("round-trips %j as base64url", (position) => {
    const cursor = encodeListCursor(position);
    expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(decodeListCursor(cursor)).toEqual(position);
  });

  it.each<[string, unknown]>([
    ["an empty string", ""],
    ["not base64url", "a+b/c="],
    ["base64url of text that is not JSON", b64("not json")],
    ["a JSON array", b64("[1,5,\"a\"]")],
    ["another version", b64(JSON.stringify({ v: 2, t: 5, id: "a" }))],
    ["a negative time", b64(JSON.stringify({ v: 1, t: -1, id: "a" }))],
    ["a fractional time", b64(JSON.stringify({ v: 1, t: 1.5, id: "a" }))],
    ["a time as a string", b64(JSON.stringify({ v: 1, t: "5", id: "a" }))],
    ["an empty id", b64(JSON.stringify({ v: 1, t: 5, id: "" }))],
    ["an id over 128", b64(JSON.stringify({ v: 1, t: 5, id: "x".repeat(129) }))],
    ["an extra key", b64(JSON.stringify({ v: 1, t: 5, id: "a", status: "pending" }))],
    ["a very long string", "A".repeat(10_000)],
    ["a number", 5],
  ])("refuses %s", (_name, cursor) => {
    expect(decodeListCursor(cursor)).toBeUndefined();
  });
});

describe("listPage: how a page is cut", () => {
  const records = (n: number, over: Partial<QuestionRecord> = {}) =>
    Array.from({ length: n }, (_, i) => pendingRecord(`q${String(n - i).padStart(5, "0")}`, { createdAtMs: 10_000 - i, ...over }));
  /** A fake store list that records the filters it was given. */
  const fakeList = (all: QuestionRecord[]) => {
    const filters: ListFilter[] = [];
    const list = async (filter: ListFilter) => {
      filters.push(filter);
      return all.slice(0, filter.limit);
    };
    return { list, filters };
  };

  it.each([
    ["no limit: the default page", 250, undefined, LIST_DEFAULT_LIMIT, true],
    ["exactly the default, nothing after", LIST_DEFAULT_LIMIT, undefined, LIST_DEFAULT_LIMIT, false],
    ["a small limit", 10, 3, 3, true],
    ["a limit over what there is", 5, 50, 5, false],
    ["a limit over the page maximum", 1500, 10_000, LIST_MAX_PAGE, true],
    ["nothing at all", 0, undefined, 0, false],
  ])("%s", async (_name, total, limit, expected, more) => {
    const { list, filters } = fakeList(records(total));
    const page = await listPage(limit === undefined ? {} : { limit }, list);
    expect(page.questions).toHaveLength(expected);
    expect(filters[0]!.limit).toBe(Math.min(limit ?? LIST_DEFAULT_LIMIT, LIST_MAX_PAGE) + 1);
    if (more) expect(decodeListCursor(page.nextCursor)).toEqual({ createdAtMs: page.questions.at(-1)!.createdAtMs, id: page.questions.at(-1)!.id });
    else expect(page).not.toHaveProperty("nextCursor");
  });

  it("passes the filter on, with the cursor as `before`", async () => {
    const { list, filters } = fakeList([]);
    await listPage({ status: "pending", surface: "telegram", chat: "7", runId: "r", sessionKey: "s", cursor: { createdAtMs: 9, id: "q" } }, list);
    expect(filters).toEqual([{ status: "pending", surface: "telegram", chat: "7", runId: "r", sessionKey: "s", before: { createdAtMs: 9, id: "q" }, limit: LIST_DEFAULT_LIMIT + 1 }]);
  });

  it("ends a page once its records reach the size budget, with a cursor after the last one it holds", async () => {
    const big = records(40, { detail: "d".repeat(100_000) });
    const page = await listPage({ limit: 40 }, fakeList(big).list);
    expect(page.questions.length).toBeGreaterThan(1);
    expect(page.questions.length).toBeLessThan(40);
    expect(JSON.stringify(page.questions).length).toBeLessThanOrEqual(LIST_PAGE_MAX_CHARS);
    expect(decodeListCursor(page.nextCursor)?.id).toBe(page.questions.at(-1)!.id);
  });

  it("always holds at least one record, however large", async () => {
    const page = await listPage({}, fakeList(records(3, { detail: "d".repeat(LIST_PAGE_MAX_CHARS + 1) })).list);
    expect(page.questions).toHaveLength(1);
    expect(page.nextCursor).toBeDefined();
  });
});

describe("question.list pages on a gateway", () => {
  const gateway = useTestGateway();
  const RUN = "paged";
  const TOTAL = 130;
  let ids: string[] = [];
  let ws: RawWs;

  beforeAll(async () => {
    ws = await RawWs.connect(gateway.wsUrl);
    for (let i = 0; i < TOTAL; i++) await ws.ok("question.request", oneQuestion({ runId: RUN }));
    ids = (await ws.ok("question.list", { runId: RUN, limit: 1000 })).questions.map((r: QuestionRecord) => r.id);
  });
  afterAll(() => ws?.close());

  it.each(["ws", "http"] as const)("over %s: the default page, then the rest by its cursor, each record once and newest first", async (name) => {
    const t: Transport = await openTransport(name, gateway);
    try {
      const first = await t.call("question.list", { runId: RUN });
      if (!first.ok) throw new Error(first.error.message);
      expect(first.payload.questions).toHaveLength(LIST_DEFAULT_LIMIT);
      expect(typeof first.payload.nextCursor).toBe("string");
      const second = await t.call("question.list", { runId: RUN, cursor: first.payload.nextCursor });
      if (!second.ok) throw new Error(second.error.message);
      expect(second.payload.questions).toHaveLength(TOTAL - LIST_DEFAULT_LIMIT);
      expect(second.payload).not.toHaveProperty("nextCursor");
      const paged = [...first.payload.questions, ...second.payload.questions] as QuestionRecord[];
      expect(paged.map((r) => r.id)).toEqual(ids);
      const order = paged.map((r) => [r.createdAtMs, r.id] as const);
      expect(order).toEqual([...order].sort((a, b) => b[0] - a[0] || (a[1] < b[1] ? 1 : -1)));
    } finally {
      t.close();
    }
  });

  it("keeps the cursor's place while newer questions arrive", async () => {
    for (let i = 0; i < 6; i++) await ws.ok("question.request", oneQuestion({ runId: "moving" }));
    const before = (await ws.ok("question.list", { runId: "moving" })).questions.map((r: QuestionRecord) => r.id);
    const first = await ws.ok("question.list", { runId: "moving", limit: 3 });
    await ws.ok("question.request", oneQuestion({ runId: "moving" }));
    const second = await ws.ok("question.list", { runId: "moving", limit: 3, cursor: first.nextCursor });
    expect(second.questions.map((r: QuestionRecord) => r.id)).toEqual(before.slice(3));
    expect(second).not.toHaveProperty("nextCursor");
  });

  it.each<[string, unknown]>([
    ["garbage", "not a cursor!"],
    ["base64url that is not a cursor", b64("{\"v\":1}")],
    ["an empty string", ""],
    ["a number", 42],
    ["a string over 512", "A".repeat(600)],
  ])("refuses %s as the cursor with INVALID_PARAMS at `cursor`", async (_name, cursor) => {
    const res = await ws.request("question.list", { runId: RUN, cursor });
    expect(res.ok).toBe(false);
    if (res.ok) return;
    expect(res.error.code).toBe("INVALID_PARAMS");
    expect(res.error.issues?.map((i) => i.path)).toEqual(["cursor"]);
    expect(res.error.message).toMatch(/^invalid params for question\.list: cursor: /);
  });

  describe("the client", () => {
    let client: GatewayClient;
    beforeAll(async () => {
      client = await connectGateway({ url: gateway.url, token: TOKEN });
    });
    afterAll(() => client?.close());

    it("list gives one page; listPage gives its cursor too", async () => {
      expect((await client.list({ runId: RUN })).map((r) => r.id)).toEqual(ids.slice(0, LIST_DEFAULT_LIMIT));
      const page = await client.listPage({ runId: RUN, limit: 30 });
      expect(page.questions.map((r) => r.id)).toEqual(ids.slice(0, 30));
      expect((await client.list({ runId: RUN, limit: 30, cursor: page.nextCursor! })).map((r) => r.id)).toEqual(ids.slice(30, 60));
    });

    it("pages walks every page of the size asked for", async () => {
      const sizes: number[] = [];
      const seen: string[] = [];
      for await (const page of client.pages({ runId: RUN, limit: 40 })) {
        sizes.push(page.length);
        seen.push(...page.map((r) => r.id));
      }
      expect(sizes).toEqual([40, 40, 40, 10]);
      expect(seen).toEqual(ids);
    });

    it("listAll gathers everything, filters kept across pages", async () => {
      expect((await client.listAll({ runId: RUN, limit: 7 })).map((r) => r.id)).toEqual(ids);
      expect(await client.listAll({ runId: "nobody" })).toEqual([]);
      expect((await client.listAll({ runId: RUN, status: "answered" })).map((r) => r.id)).toEqual([]);
    });
  });
});
