/**
 * Who the person is, learned from the first message they send the bot (`init`, src/cli/init.ts): the platform's own
 * long-poll (its descriptor's `setup.pairing.capture`), called with plain HTTP until the hello comes. No SDK.
 */
import type { PlatformDescriptor } from "./descriptor.ts";
import { networkReason } from "./credential-check.ts";

export type PairingOutcome =
  | { status: "hello"; chat: string; user: string; name?: string }
  /** The platform said no (Telegram's 409: another process polls the bot); `fix` says what to do. */
  | { status: "failed"; why: string; fix?: string }
  | { status: "unreachable"; why: string }
  | { status: "aborted" }
  /** The descriptor has no capture, or its variables are incomplete. */
  | { status: "uncapturable" };

/** How long one long-poll waits for a message (Telegram allows up to 50 s; proxies often cut at 60). */
export const PAIRING_POLL_SECONDS = 25;

/**
 * Polls until the person's hello comes, `signal` aborts, or the platform refuses. The update that carried the hello
 * is then confirmed (one more poll past it, not waiting), so the bot does not see it again when it starts.
 */
export async function awaitHello(
  platform: Pick<PlatformDescriptor, "setup">,
  env: Readonly<Record<string, unknown>>,
  { signal, waitSeconds = PAIRING_POLL_SECONDS }: { signal?: AbortSignal; waitSeconds?: number } = {},
): Promise<PairingOutcome> {
  const capture = platform.setup?.pairing.capture;
  if (!capture || !capture(env, undefined, 0)) return { status: "uncapturable" };
  let cursor: string | undefined;
  for (;;) {
    if (signal?.aborted) return { status: "aborted" };
    const request = capture(env, cursor, waitSeconds)!;
    let status: number;
    let body: unknown;
    try {
      const deadline = AbortSignal.timeout((waitSeconds + 15) * 1000);
      const res = await fetch(request.url, {
        method: request.method ?? "GET",
        ...(request.headers ? { headers: request.headers } : {}),
        ...(request.body !== undefined ? { body: request.body } : {}),
        signal: signal ? AbortSignal.any([signal, deadline]) : deadline,
      });
      status = res.status;
      body = await res.json().catch(() => undefined);
    } catch (error) {
      if (signal?.aborted) return { status: "aborted" };
      return { status: "unreachable", why: `${new URL(request.url).origin}: ${networkReason(error)}` };
    }
    if (status >= 500) return { status: "unreachable", why: `${new URL(request.url).origin}: HTTP ${status}` };
    const read = request.read(status, body);
    if ("why" in read) return { status: "failed", why: read.why, ...(read.fix ? { fix: read.fix } : {}) };
    cursor = read.cursor ?? cursor;
    if (read.hello) {
      const confirm = capture(env, cursor, 0)!;
      await fetch(confirm.url, { method: confirm.method ?? "GET", ...(confirm.headers ? { headers: confirm.headers } : {}), ...(confirm.body !== undefined ? { body: confirm.body } : {}), signal: AbortSignal.timeout(10_000) })
        .then((res) => res.body?.cancel())
        .catch(() => undefined);
      return { status: "hello", ...read.hello };
    }
  }
}
