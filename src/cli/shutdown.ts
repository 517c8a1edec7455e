/** How a long-running command (gateway, start, bot) stops: on SIGTERM or SIGINT, within a bounded time. */

/** The longest a stop may take after the signal: the process exits by then whatever is still open. */
export const STOP_GRACE_MS = 1_800;

/** The exit code of a bot that cannot recover (its token was rejected): `start` does not restart it. */
export const EXIT_UNRECOVERABLE = 78;

/** Resolves with the first stop signal. */
export function untilSignal(): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    process.once("SIGINT", () => resolve("SIGINT"));
    process.once("SIGTERM", () => resolve("SIGTERM"));
  });
}

/**
 * After a stop signal: the process exits with `code` within `graceMs` even if something keeps it alive (a long poll
 * that only returns after 30 s, a socket a peer never closes). The timer is unref'd, so a clean stop exits sooner.
 */
export function exitWithin(code: number, graceMs = STOP_GRACE_MS): void {
  setTimeout(() => process.exit(code), graceMs).unref();
}

/** Runs `stop`, but gives up waiting after `graceMs` (the forced exit above then ends the process). */
export async function stopWithin(stop: () => Promise<void>, graceMs = STOP_GRACE_MS - 300): Promise<"stopped" | "timed out"> {
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<"timed out">((resolve) => {
    timer = setTimeout(() => resolve("timed out"), graceMs);
  });
  try {
    return await Promise.race([stop().then(() => "stopped" as const), timedOut]);
  } finally {
    clearTimeout(timer);
  }
}
