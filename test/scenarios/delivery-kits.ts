/**
 * What the delivery scenarios (delivery-scenarios.ts) drive on each platform: its real bot, its fake, and a way to
 * fail or refuse a chat's sends and count every edit. Each platform's kit is test/platforms/<p>/delivery-kit.ts.
 */
import type { Surface } from "../../src/contract/result.ts";
import type { ScenarioClock } from "./harness.ts";

export interface DeliveryKit {
  surface: Surface;
  /** The virtual clock of the gateway and the bot (the in-memory platform's kit); absent: they run on real time. */
  clock?: ScenarioClock;
  gatewayUrl(): string;
  /** Two chats the bot can post in. */
  chats: [string, string];
  /** A chat the platform refuses for good (Telegram: blocked; Discord: 50033 Invalid Recipient(s); Slack: not_in_channel). */
  refusingChat: string;
  /** Every prompt send to `chat` fails with HTTP `status` (the platform's 5xx) until the returned function is called. */
  failSendsTo(chat: string, status: number): () => void;
  /** Prompt sends the platform accepted, per chat. */
  acceptedSends(chat: string): number;
  /** Edit calls the bot made (accepted or not). */
  editCalls(): number;
  /** Every edit in `chat` fails with HTTP `status` until the returned function is called. */
  failEditsIn(chat: string, status: number): () => void;
  /**
   * false (e-mail): resolution sends nothing to a copy, and the one message that updates it is the mail saying a late
   * answer was taken; the edit scenarios then settle each copy with a late answer, and count those mails as edits.
   */
  summaries?: boolean;
  stopBot(): Promise<void>;
  startBot(): Promise<void>;
  close(): Promise<void>;
}
