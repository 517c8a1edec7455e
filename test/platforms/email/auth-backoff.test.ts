/** The listener's per-address back-off of wrong SMTP logins (bots/email/auth-backoff.ts), on a virtual clock. */
import { describe, expect, it } from "vitest";
import { addressKey, createSmtpAuthBackoff, SMTP_AUTH_FREE_FAILURES, SMTP_AUTH_MAX_DELAY_MS } from "../../../bots/email/auth-backoff.ts";

/** A clock that a wait moves forward at once, recording each wait. */
function virtualClock() {
  let at = 1_000_000;
  const waits: number[] = [];
  return {
    now: () => at,
    sleep: async (ms: number) => {
      waits.push(ms);
      at += ms;
    },
    advance: (ms: number) => void (at += ms),
    waits,
  };
}

const wrong = () => false;
const right = () => true;

describe("the SMTP AUTH back-off", () => {
  it("lets a few wrong logins through unhindered, then makes the next wait 1 s, doubling up to 30 s", async () => {
    const clock = virtualClock();
    const backoff = createSmtpAuthBackoff(clock);
    const locks: number[] = [];
    for (let i = 0; i < SMTP_AUTH_FREE_FAILURES + 7; i++) {
      const verdict = await backoff.login("203.0.113.5", wrong);
      locks.push(verdict.ok ? -1 : verdict.lockedForMs);
    }
    expect(locks).toEqual([0, 0, 0, 0, 1_000, 2_000, 4_000, 8_000, 16_000, 30_000, 30_000, 30_000]);
    // Each login after the fifth waited out the lockout the one before it set.
    expect(clock.waits).toEqual([1_000, 2_000, 4_000, 8_000, 16_000, SMTP_AUTH_MAX_DELAY_MS, SMTP_AUTH_MAX_DELAY_MS]);
  });

  it("never refuses a right login: during a lockout it waits its turn and is let in", async () => {
    const clock = virtualClock();
    const backoff = createSmtpAuthBackoff(clock);
    for (let i = 0; i < SMTP_AUTH_FREE_FAILURES; i++) await backoff.login("203.0.113.5", wrong);
    expect(await backoff.login("203.0.113.5", right)).toEqual({ ok: true });
    expect(clock.waits).toEqual([1_000]);
    // It does not clear the count: the next wrong one locks for longer.
    expect(await backoff.login("203.0.113.5", wrong)).toEqual({ ok: false, gone: false, lockedForMs: 2_000 });
  });

  it("checks one address's logins one at a time, so more connections guess no faster; other addresses never wait", async () => {
    const clock = virtualClock();
    const backoff = createSmtpAuthBackoff(clock);
    for (let i = 0; i < SMTP_AUTH_FREE_FAILURES; i++) await backoff.login("203.0.113.5", wrong);
    const checkedAt: number[] = [];
    const parallel = await Promise.all(Array.from({ length: 3 }, () => backoff.login("203.0.113.5", () => (checkedAt.push(clock.now()), false))));
    expect(parallel.map((v) => !v.ok && v.lockedForMs)).toEqual([2_000, 4_000, 8_000]);
    expect(checkedAt.map((t) => t - checkedAt[0]!)).toEqual([0, 2_000, 6_000]);
    const waited = clock.waits.length;
    expect(await backoff.login("198.51.100.7", right)).toEqual({ ok: true });
    expect(await backoff.login("2001:db8:1:2::9", wrong)).toEqual({ ok: false, gone: false, lockedForMs: 0 });
    expect(clock.waits).toHaveLength(waited);
    expect(backoff.size.queues).toBe(0);
  });

  it("drops a login whose connection closed while it waited, unchecked and uncounted", async () => {
    const clock = virtualClock();
    const backoff = createSmtpAuthBackoff(clock);
    for (let i = 0; i < SMTP_AUTH_FREE_FAILURES; i++) await backoff.login("203.0.113.5", wrong);
    let checked = false;
    expect(await backoff.login("203.0.113.5", () => (checked = true), () => false)).toEqual({ ok: false, gone: true, lockedForMs: 0 });
    expect(checked).toBe(false);
    expect(await backoff.login("203.0.113.5", wrong)).toEqual({ ok: false, gone: false, lockedForMs: 2_000 });
  });

  it("forgets an address after 15 quiet minutes, and remembers a bounded number of addresses", async () => {
    const clock = virtualClock();
    const backoff = createSmtpAuthBackoff({ ...clock, maxAddresses: 3 });
    for (let i = 0; i < SMTP_AUTH_FREE_FAILURES; i++) await backoff.login("203.0.113.5", wrong);
    clock.advance(15 * 60_000);
    expect(await backoff.login("203.0.113.5", wrong)).toEqual({ ok: false, gone: false, lockedForMs: 0 });
    for (let i = 1; i <= 10; i++) await backoff.login(`192.0.2.${i}`, wrong);
    expect(backoff.size.counts).toBe(3);
  });

  it.each([
    ["192.0.2.1", "192.0.2.1"],
    ["::ffff:192.0.2.1", "192.0.2.1"],
    ["2001:db8:1:2:3:4:5:6", "2001:db8:1:2::/64"],
    ["2001:0db8:0001:0002::9", "2001:db8:1:2::/64"],
    ["fe80::1%eth0", "fe80:0:0:0::/64"],
    [undefined, "unknown"],
  ])("counts %s under %s", (address, key) => {
    expect(addressKey(address)).toBe(key);
  });
});
