/** Issue 37 §5: a message stamped before the copy in its chat was delivered answers nothing (a replayed body). */
import { describe, expect, it } from "vitest";
import { COPY_CLOCK_GRACE_MS, writtenBeforeCopy } from "../../src/bridge/authorize.ts";
import type { QuestionRecord } from "../../src/record/record.ts";

const record = { deliveries: [{ surface: "whatsapp", chat: "1555", messageRef: "wamid.1", deliveredAtMs: 1_000_000 }] } as unknown as QuestionRecord;

describe("writtenBeforeCopy", () => {
  it.each([
    ["no stamp", "1555", undefined, false],
    ["stamped after the delivery", "1555", 1_000_500, false],
    ["stamped in the same second, a little before it was recorded", "1555", 999_000, false],
    ["stamped just within the grace", "1555", 1_000_000 - COPY_CLOCK_GRACE_MS, false],
    ["stamped before the grace", "1555", 1_000_000 - COPY_CLOCK_GRACE_MS - 1, true],
    ["two minutes before", "1555", 1_000_000 - 120_000, true],
    ["another chat, with no copy", "1666", 1, false],
  ] as const)("%s", (_, chat, sentAtMs, expected) => {
    expect(writtenBeforeCopy(record, "whatsapp", chat, sentAtMs)).toBe(expected);
  });
});
