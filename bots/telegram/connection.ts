import { HttpError, type Transformer } from "grammy";
import { BotStopError } from "../../src/kernel/errors.ts";
import type { Log } from "../shared.ts";

/** While the Bot API stays unreachable, the line is repeated this often (with the count), not on every call. */
const REPEAT_MS = 30_000;

/**
 * Why a call never reached the Bot API, without the request URL (it holds the bot token): the network error's code
 * (`ECONNREFUSED`, `ENOTFOUND`, `ETIMEDOUT`), else its message with any URL cut out.
 */
export function unreachableCause(error: HttpError): string {
  const inner = error.error as { code?: unknown; cause?: { code?: unknown }; message?: unknown } | undefined;
  const code = inner?.code ?? inner?.cause?.code;
  if (typeof code === "string" && code) return code;
  const message = typeof inner?.message === "string" ? inner.message : error.message;
  return message.replace(/\bhttps?:\/\/\S+/giu, "<url>").slice(0, 200);
}

/** The reason a send that never reached the Bot API gives the gateway (and so the asker's delivery_failed). */
export function unreachableReason(error: HttpError): string {
  return `telegram: cannot reach the Bot API: ${unreachableCause(error)}`;
}

export interface ConnectionTrackerOptions {
  log: Log;
  /** The API root, for the lines (never the token). */
  address: string;
  /** Told once when the platform refuses the bot for good (401), or another process polls with its token (409). */
  onStop: (error: BotStopError) => void;
  now?: () => number;
}

/**
 * A grammY API transformer that watches every Bot API call (install it first, so it sees each attempt the retry
 * plugins make) and logs the connection's state changes: connecting, connected, cannot reach (with the address and
 * the network error, at once and then every 30 s while it lasts), reached again. A 401 or a getUpdates 409 is handed
 * to `onStop`: the bot cannot go on.
 */
export function trackTelegramConnection({ log, address, onStop, now = Date.now }: ConnectionTrackerOptions): Transformer {
  let state: "connecting" | "connected" | "unreachable" = "connecting";
  let failures = 0;
  let loggedAt = 0;
  let stopped = false;
  log(`connecting to the Bot API at ${address}`);

  const stop = (error: BotStopError) => {
    if (stopped) return;
    stopped = true;
    onStop(error);
  };

  return async (prev, method, payload, signal) => {
    let result;
    try {
      result = await prev(method, payload, signal);
    } catch (error) {
      if (error instanceof HttpError && !signal?.aborted) {
        failures++;
        if (state !== "unreachable" || now() - loggedAt >= REPEAT_MS) {
          const lost = state === "connected" ? "lost the connection: " : "";
          log(`${lost}cannot reach the Bot API at ${address}: ${unreachableCause(error)} (${failures} failed ${failures === 1 ? "call" : "calls"}); retrying`, error);
          loggedAt = now();
        }
        state = "unreachable";
      }
      throw error;
    }
    if (!result.ok && result.error_code === 401) {
      stop(new BotStopError("telegram: the token was rejected (401 Unauthorized): check TELEGRAM_BOT_TOKEN, or create a new token with @BotFather", true));
    } else if (!result.ok && result.error_code === 409 && method === "getUpdates") {
      stop(new BotStopError("telegram: another process is polling with this token (409 Conflict): stop the other bot process, or give each its own token", false));
    }
    if (state !== "connected") {
      log(state === "unreachable" ? `reached the Bot API at ${address} again after ${failures} failed ${failures === 1 ? "call" : "calls"}` : `connected to the Bot API at ${address}`);
      state = "connected";
      failures = 0;
    }
    return result;
  };
}
