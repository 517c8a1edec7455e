import { describe, expect, it } from "vitest";
import { GatewayError } from "../../../src/kernel/errors.ts";
import { QuotaExceededError, SessionBusyError, StoreUnavailableError } from "../../../src/gateway/store/kit/errors.ts";
import { stored } from "../../../src/gateway/service/stored.ts";

describe("stored: store failures as protocol errors", () => {
  it.each([
    [
      new QuotaExceededError({ quota: "run", pending: 50, max: 50, runId: "r1", askedBy: "c1" }),
      "QUOTA_EXCEEDED",
      "run r1 already has 50 pending questions (ASK_MAX_PENDING_PER_RUN is 50)",
    ],
    [
      new QuotaExceededError({ quota: "credential", pending: 200, max: 200, askedBy: "c1" }),
      "QUOTA_EXCEEDED",
      "credential c1 already has 200 pending questions (ASK_MAX_PENDING_PER_CREDENTIAL is 200)",
    ],
    [new SessionBusyError("s1"), "SESSION_HAS_PENDING_QUESTION", "session s1 already has a pending question"],
    [new StoreUnavailableError("PostgreSQL is unreachable: ECONNREFUSED"), "STORE_UNAVAILABLE", "PostgreSQL is unreachable: ECONNREFUSED"],
  ] as const)("maps %s", async (error, code, message) => {
    const failure = await stored(Promise.reject(error)).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(GatewayError);
    expect(failure).toMatchObject({ code, message, cause: error });
  });

  it("passes other errors through unchanged, and results too", async () => {
    const other = new TypeError("a bug");
    await expect(stored(Promise.reject(other))).rejects.toBe(other);
    expect(await stored(Promise.resolve(7))).toBe(7);
  });
});
