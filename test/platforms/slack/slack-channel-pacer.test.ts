/** The Slack bot's per-channel pace for chat.postMessage (bots/slack/channel-pacer.ts), on a fake clock. */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { createChannelPacer } from "../../../bots/slack/channel-pacer.ts";

describe("the Slack channel pacer", () => {
  beforeEach(() => void vi.useFakeTimers());
  afterEach(() => void vi.useRealTimers());

  const pacer = () => createChannelPacer({ perSecond: 1, burst: 3, now: () => Date.now() });

  it("posts in line for one channel: the first 3 at once, then one a second; another channel is not held up", async () => {
    const p = pacer();
    const t0 = Date.now();
    const at: Array<[string, number]> = [];
    const post = (channel: string) => p.run(channel, async () => void at.push([channel, Date.now() - t0]));
    const all = Promise.all([...Array.from({ length: 6 }, () => post("C1")), post("C2")]);
    await vi.advanceTimersByTimeAsync(5_000);
    await all;
    expect(at.filter(([c]) => c === "C1").map(([, ms]) => ms)).toEqual([0, 0, 0, 1000, 2000, 3000]);
    expect(at.filter(([c]) => c === "C2").map(([, ms]) => ms)).toEqual([0]);
  });

  it("a post with none in line goes at once, even past the pace", async () => {
    const p = pacer();
    const t0 = Date.now();
    const at: number[] = [];
    for (let i = 0; i < 5; i++) await p.run("C1", async () => void at.push(Date.now() - t0));
    expect(at).toEqual([0, 0, 0, 0, 0]);
  });

  it("a failed post still lets the next one in line go", async () => {
    const p = pacer();
    const failed = p.run("C1", async () => {
      throw new Error("channel_not_found");
    });
    const next = p.run("C1", async () => "ok");
    await expect(failed).rejects.toThrow("channel_not_found");
    await vi.advanceTimersByTimeAsync(1_000);
    await expect(next).resolves.toBe("ok");
  });
});
