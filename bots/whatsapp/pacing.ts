/**
 * How the bot keeps to WhatsApp's limits, with the kit's keyed pacer. Per recipient (the pair rate): a business
 * number may send one person about one message every 6 seconds, with bursts (Meta documents up to 45 in 6 seconds,
 * then a wait as long), and over that it answers 131056. A token bucket per recipient keeps the bot under it, so a
 * burst of questions to one person waits its turn (one at a time) instead of collecting refusals and backoffs, and
 * other recipients are not held up; the time a send is in flight earns no tokens. For the number (its throughput):
 * the Cloud API takes about 80 messages a second from one business number (more on request) and answers 130429
 * over it; each send, once its recipient's turn came, takes the next slot of a cell rate shared by all recipients
 * (the time spent waiting there still earns the recipient tokens).
 */
import { createKeyedPacer } from "../kit/pacer.ts";
import { cellRate, tokenBucket, type BucketPace } from "../kit/paces.ts";

/** Meta's documented pair rate: 1 message every 6 s to one recipient, with bursts of up to 45. */
export const WHATSAPP_PAIR_PACE: BucketPace = { perSecond: 1 / 6, burst: 45 };

/** Meta's default throughput for a business number. */
export const WHATSAPP_THROUGHPUT: BucketPace = { perSecond: 80, burst: 80 };

export function createWhatsAppPacer(pace: BucketPace = WHATSAPP_PAIR_PACE, throughput: BucketPace = WHATSAPP_THROUGHPUT) {
  return createKeyedPacer({ pace: () => tokenBucket(pace, { inFlightEarns: false }), overall: cellRate(throughput) });
}
