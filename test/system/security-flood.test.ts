/**
 * Issue #17 §6, against the real gateway process: a flood of large pending questions must not lock out the Control UI.
 *
 * - The attack: 18 question.request of about 1 MB each (just under the frame limit). Each one used to be stored, and
 *   every resync of the Control UI (question.list of every pending record, in one response) then overflowed the
 *   connection's 16 MiB send queue, so the UI was disconnected and reconnected again and again for up to an hour.
 *   Now the contract refuses each at once with INVALID_PARAMS naming the field, and nothing is stored.
 * - The same size in non-ASCII text: a header or a label of hundreds of thousands of characters. Cutting such a header
 *   to 12 characters used to take Intl.Segmenter minutes, with the gateway blocked meanwhile; now it is refused in
 *   milliseconds while the gateway goes on answering.
 * - Within the caps, enough pending questions of the largest kind to outgrow the send queue together: the UI's resync
 *   pages through question.list (the pending ones and the recent history at once, as the UI does), every response
 *   stays small, and the connection is never dropped. A client that still asks for everything in one call gets one
 *   bounded page and a cursor.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RawData } from "ws";
import { LIMITS } from "../../src/contract/schema.ts";
import { LIST_PAGE_MAX_CHARS } from "../../src/protocol/list-filter.ts";
import { MAX_FRAME_BYTES } from "../../src/protocol/methods.ts";
import { cleanup, freePort, RawWs, spawnGateway, tempDir, type ChildGateway } from "../helpers/gateway.ts";

/** The gateway's per-connection send queue (MAX_BUFFERED_BYTES in src/gateway/server/ws-connection.ts). */
const SEND_QUEUE_BYTES = 16 * 1024 * 1024;
/** What the Control UI asks for as recent history (HISTORY_LIMIT in src/web/static/app.js). */
const UI_HISTORY = 500;
/** Enough questions of the largest kind to outgrow the send queue together (about 33 KB each as JSON). */
const LARGEST_COUNT = 540;

const options = [{ label: "Staging" }, { label: "Production" }];
const request = (q: Record<string, unknown>) => ({ questions: [{ id: "pick", header: "Pick", question: "Which one?", options, ...q }], timeoutSeconds: 900 });

/** Three questions with every text at its cap, in characters that take the most bytes (3 in UTF-8 each). */
function largestRequest(n: number) {
  const family = "👨‍👩‍👧"; // one character, 8 UTF-16 code units, 18 bytes
  return {
    questions: ["first", "second", "third"].map((name, qi) => ({
      id: `${name}_`.padEnd(LIMITS.idMaxLength, "x"),
      header: `Part ${qi + 1}`,
      question: `${n}: ${"語".repeat(LIMITS.questionMaxLength - 8)}`,
      options: ["A", "B", "C", "D"].map((letter) => ({
        label: letter + family.repeat(LIMITS.labelMaxGraphemes - 1),
        description: "語".repeat(LIMITS.descriptionMaxLength),
      })),
    })),
    timeoutSeconds: 3600,
  };
}

/** Runs `work` over 0..count-1, `limit` at a time. */
async function pool(count: number, limit: number, work: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: limit }, async () => {
    while (next < count) await work(next++);
  }));
}

describe("a flood of large questions (issue #17 §6, gateway as a process)", () => {
  let gateway: ChildGateway;
  let agent: RawWs;

  beforeAll(async () => {
    gateway = await spawnGateway({ GATEWAY_PORT: String(await freePort()), DATA_DIR: tempDir("aub-flood-sec-") });
    agent = await RawWs.connect(gateway.wsUrl);
  }, 120_000);
  afterAll(async () => {
    agent?.close();
    await cleanup();
  });

  const pendingCount = async () => {
    let count = 0;
    for (let cursor: string | undefined, first = true; first || cursor; first = false) {
      const page = await agent.ok("question.list", { status: "pending", limit: 1000, ...(cursor ? { cursor } : {}) });
      count += page.questions.length;
      cursor = page.nextCursor;
    }
    return count;
  };

  it("refuses 18 requests of about 1 MB each at the contract, naming the field, and stores none", async () => {
    const before = await pendingCount();
    const question = "q".repeat(1_000_000);
    const frame = JSON.stringify({ type: "req", id: 0, method: "question.request", params: request({ question }) });
    expect(Buffer.byteLength(frame)).toBeLessThan(MAX_FRAME_BYTES); // under the frame limit: the contract has to refuse it
    const responses = await Promise.all(Array.from({ length: 18 }, () => agent.request("question.request", request({ question }))));
    for (const res of responses) {
      expect(res).toMatchObject({ ok: false, error: { code: "INVALID_PARAMS" } });
      if (res.ok) continue;
      expect(res.error.issues).toEqual([{ path: "questions[0].question", message: "must be at most 1000 characters (got 1000000)" }]);
      expect(res.error.message).toContain("questions[0].question: must be at most 1000 characters (got 1000000)");
    }
    expect(await pendingCount()).toBe(before);
  }, 60_000);

  it.each([
    ["a header of 450,000 é", { header: "é".repeat(450_000) }, "questions[0].header", "must be at most 256 characters (got 450000)"],
    ["an option description of 300,000 語", { options: [{ label: "A", description: "語".repeat(300_000) }, { label: "B" }] }, "questions[0].options[0].description", "must be at most 300 characters (got 300000)"],
    ["a label of one character and 450,000 combining marks", { options: [{ label: `a${"\u0301".repeat(450_000)}` }, { label: "B" }] }, "questions[0].options[0].label", "must be at most 64 characters (got 450001 UTF-16 code units)"],
    ["an id of 900,000 letters", { id: "a".repeat(900_000) }, "questions[0].id", "must be at most 64 characters (got 900000)"],
  ])("refuses %s in milliseconds, and the gateway keeps answering meanwhile", async (_name, q, path, message) => {
    const other = await RawWs.connect(gateway.wsUrl);
    try {
      const started = Date.now();
      const [res, meanwhile] = await Promise.all([agent.request("question.request", request(q)), other.request("question.list", { limit: 1 })]);
      expect(res).toMatchObject({ ok: false, error: { code: "INVALID_PARAMS", issues: [{ path, message }] } });
      expect(meanwhile.ok).toBe(true);
      // Generous for a shared machine; cutting the header alone used to take minutes.
      expect(Date.now() - started).toBeLessThan(3_000);
    } finally {
      other.close();
    }
  }, 30_000);

  describe(`${LARGEST_COUNT} pending questions of the largest kind the contract allows`, () => {
    beforeAll(async () => {
      await pool(LARGEST_COUNT, 8, async (n) => void (await agent.ok("question.request", largestRequest(n))));
    }, 180_000);

    it("the Control UI's resync pages through them: every response small, the connection kept", async () => {
      const ui = await RawWs.connect(gateway.wsUrl);
      const frameBytes: number[] = [];
      ui.socket.on("message", (data: RawData) => {
        const bytes = Buffer.isBuffer(data) ? data.length : Buffer.byteLength(data.toString());
        if (JSON.parse(data.toString()).type === "res") frameBytes.push(bytes);
      });
      let dropped = false;
      void ui.closed.then(() => (dropped = true));
      try {
        /** Follows the cursors until `max` records (or the end), one page at a time, as the UI does after the fix. */
        const walk = async (filter: Record<string, unknown>, max = Infinity) => {
          const records: Array<{ id: string }> = [];
          let cursor: string | undefined;
          do {
            const page = await ui.ok("question.list", { ...filter, ...(cursor ? { cursor } : {}) });
            records.push(...page.questions);
            cursor = page.nextCursor;
          } while (cursor && records.length < max);
          return records;
        };
        // Pending and recent history at once, as the UI's resync does.
        const [pending, recent] = await Promise.all([walk({ status: "pending" }), walk({ limit: UI_HISTORY }, UI_HISTORY)]);
        expect(new Set(pending.map((r) => r.id)).size).toBe(pending.length);
        expect(pending.length).toBeGreaterThanOrEqual(LARGEST_COUNT);
        expect(recent.length).toBeGreaterThanOrEqual(UI_HISTORY);

        const total = frameBytes.reduce((a, b) => a + b, 0);
        const largest = Math.max(...frameBytes);
        console.log(`[flood] ${frameBytes.length} list responses, ${(total / 2 ** 20).toFixed(1)} MiB in all, the largest ${(largest / 2 ** 20).toFixed(2)} MiB`);
        // In one response, as before pages, the pending questions alone would have outgrown the send queue.
        expect(Buffer.byteLength(JSON.stringify(pending))).toBeGreaterThan(SEND_QUEUE_BYTES);
        // Each page is bounded by the page budget (characters of JSON; at most 3 bytes each), far under the queue.
        expect(largest).toBeLessThan(3 * LIST_PAGE_MAX_CHARS + 4096);
        expect(2 * largest).toBeLessThan(SEND_QUEUE_BYTES);
        expect((await ui.request("question.list", { limit: 1 })).ok).toBe(true);
        expect(dropped).toBe(false);
      } finally {
        ui.close();
      }
    }, 120_000);

    it("a client that still asks for everything in one call gets one bounded page and a cursor", async () => {
      const res = await agent.request("question.list", { status: "pending", limit: 10_000 });
      if (!res.ok) throw new Error(res.error.message);
      expect(res.payload.questions.length).toBeLessThan(LARGEST_COUNT);
      expect(typeof res.payload.nextCursor).toBe("string");
      expect(JSON.stringify(res.payload.questions).length).toBeLessThanOrEqual(LIST_PAGE_MAX_CHARS);
    }, 60_000);
  });
});
