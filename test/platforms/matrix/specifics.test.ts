/** The Matrix pieces that need no homeserver: the reply fallback, the rate gate, the sync token file (the renderers: renderers.test.ts). */
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { MatrixError } from "matrix-js-sdk";
import { describe, expect, it } from "vitest";
import { createRateGate } from "../../../bots/matrix/rate-gate.ts";
import { stripReplyFallback } from "../../../bots/matrix/inbound.ts";
import { createSyncTokenStore } from "../../../bots/matrix/sync-token.ts";
import { looksLikeCredential } from "../../../src/parse/credential.ts";
import { tempDir } from "../../helpers/temp-dirs.ts";

describe("matrix reply fallback", () => {
  it.each([
    ["> <@bot:x> Deploy?\n> 1. Staging\n\n2", "2"],
    ["2", "2"],
    ["> <@bot:x> only a quote", ""],
  ])("%j reads as %j", (body, typed) => {
    expect(stripReplyFallback(body)).toBe(typed);
  });
});

const limited = (ms: number) => new MatrixError({ errcode: "M_LIMIT_EXCEEDED", error: "Too Many Requests", retry_after_ms: ms }, 429);

describe("matrix rate gate", () => {
  it("waits the retry_after_ms asked for, then tries again; another error goes back at once", async () => {
    let clock = 0;
    const waits: number[] = [];
    const gate = createRateGate({ now: () => clock, sleep: async (ms) => void (waits.push(ms), (clock += ms)) });
    let calls = 0;
    expect(await gate.run("send", async () => (++calls < 3 ? Promise.reject(limited(700)) : "ok"))).toBe("ok");
    expect(waits).toEqual([700, 700]);
    await expect(gate.run("send", () => Promise.reject(new Error("boom")))).rejects.toThrow("boom");
  });

  it("a wait over 30 s, or refusals for over 5 minutes, go back to the caller (the bridge's retry)", async () => {
    let clock = 0;
    const gate = createRateGate({ now: () => clock, sleep: async (ms) => void (clock += ms) });
    await expect(gate.run("send", () => Promise.reject(limited(60_000)))).rejects.toBeInstanceOf(MatrixError);
    let tries = 0;
    await expect(gate.run("send", () => (tries++, Promise.reject(limited(20_000))))).rejects.toBeInstanceOf(MatrixError);
    expect(tries).toBe(17); // refused at 0, 20 s, … 320 s: past 5 minutes
  });

  it("after a refusal, calls go in single file", async () => {
    let clock = 0;
    const gate = createRateGate({ now: () => clock, sleep: async (ms) => void (clock += ms) });
    await gate.run("send", (() => {
      let first = true;
      return async () => (first ? ((first = false), Promise.reject(limited(5))) : "ok");
    })());
    let inFlight = 0;
    let most = 0;
    await Promise.all(
      Array.from({ length: 5 }, () =>
        gate.run("send", async () => {
          most = Math.max(most, ++inFlight);
          await new Promise((r) => setTimeout(r, 5));
          inFlight--;
        }),
      ),
    );
    expect(most).toBe(1);
  });
});

describe("matrix sync token", () => {
  it("survives a restart, is written whole (no temporary file left), and belongs to one account", () => {
    const dir = tempDir("aub-mx-token-");
    const store = createSyncTokenStore(dir, "https://hs.example", "@bot:example");
    expect(store.read()).toBeUndefined();
    store.write("s42");
    store.write("s43");
    expect(createSyncTokenStore(dir, "https://hs.example", "@bot:example").read()).toBe("s43");
    expect(readdirSync(dir)).toEqual([store.file.slice(dir.length + 1)]);
    expect(JSON.parse(readFileSync(store.file, "utf8"))).toMatchObject({ user_id: "@bot:example", next_batch: "s43" });
    // Another account (or homeserver) has its own file; a file naming another account is not taken.
    expect(createSyncTokenStore(dir, "https://hs.example", "@other:example").read()).toBeUndefined();
    writeFileSync(store.file, JSON.stringify({ user_id: "@other:example", next_batch: "s1" }));
    expect(store.read()).toBeUndefined();
    writeFileSync(store.file, "{not json");
    expect(store.read()).toBeUndefined();
  });
});

describe("matrix credential shapes", () => {
  it.each([
    ["syt_YWRh_abcdefghijklmnopqrst_0A1b2C", true],
    ["my token is syt_ YWRh_abcdefghijklmnopqrst _0A1b2C", true],
    ["mat_abcdefghijklmnopqrstuvwxyz0123_0A1b2C", true],
    ["sync the syt file", false],
  ])("%j looks like a credential: %s", (text, refused) => {
    expect(looksLikeCredential(text)).toBe(refused);
  });
});
