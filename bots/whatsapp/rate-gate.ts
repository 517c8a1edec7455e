/**
 * The phone number's throughput: the Cloud API takes about 80 messages a second from one business number (more on
 * request) and answers 130429 over it. Unlike the per-recipient pacer this lets sends overlap: each takes the next
 * slot of a token bucket (the generic cell rate algorithm: one slot every 1/perSecond s, nine tenths of `burst` at
 * once), in order.
 */
export interface Throughput {
  perSecond: number;
  burst: number;
}

/** Meta's default throughput for a business number. */
export const WHATSAPP_THROUGHPUT: Throughput = { perSecond: 80, burst: 80 };

export function createRateGate({ perSecond, burst }: Throughput = WHATSAPP_THROUGHPUT, now: () => number = () => performance.now()) {
  const intervalMs = 1000 / perSecond;
  // A tenth of the burst is kept in reserve: sends taken a slot apart may reach WhatsApp closer together than that
  // (the network's jitter), and the reserve absorbs it instead of a 130429.
  const toleranceMs = Math.max(0, Math.floor(burst * 0.9) - 1) * intervalMs;
  let theoreticalMs = 0;
  return {
    /** Resolves when the next send may go. */
    take(): Promise<void> {
      const at = now();
      const slotMs = Math.max(at, theoreticalMs - toleranceMs);
      theoreticalMs = Math.max(theoreticalMs, at) + intervalMs;
      const waitMs = slotMs - at;
      return waitMs <= 0 ? Promise.resolve() : new Promise((resolve) => setTimeout(resolve, Math.ceil(waitMs)));
    },
  };
}
