import type { Clock, ClockTimer } from "../kernel/clock.ts";
import type { GatewayClient } from "../client/index.ts";
import type { Delivery, QuestionRecord } from "../record/record.ts";
import type { SurfaceAdapter } from "./surface-adapter.ts";
import type { RecordCache } from "./record-cache.ts";
import { sendRetryDelayMs, type SendRetryPolicy } from "./send-retry.ts";

/** How many times a failed edit is tried again (1 s, 2 s, 4 s … : about two minutes in all) before the next resync. */
const EDIT_TRIES_MAX = 7;

export interface CopyEditorOptions {
  client: GatewayClient;
  adapter: SurfaceAdapter;
  cache: RecordCache;
  log: (message: string, error?: unknown) => void;
  sendRetry: SendRetryPolicy;
  clock: Clock;
  /**
   * What a copy of the record shows at `nowMs`, as a fingerprint (undefined: the adapter cannot say, so always edit).
   * It depends on the moment: an expired copy shows its controls while a late answer is still taken, then not.
   */
  fingerprintOf: (record: QuestionRecord, chat: string, nowMs: number) => string | undefined;
  /** The platform answered an edit (the claim keeper's sign that the queue moves). */
  onSettled: () => void;
}

/**
 * Edits delivered copies into what their record shows now, and only copies that are behind: each copy's fingerprint
 * is kept on the record (question.copyRendered), so a restarted bot does not edit again what already shows its
 * summary. A failed edit is tried again with the send backoff.
 */
export function createCopyEditor({ client, adapter, cache, log, sendRetry, clock, fingerprintOf, onSettled }: CopyEditorOptions) {
  const now = () => clock.now();
  const { surface } = adapter;
  /** Failed tries so far of each copy's edit still to make. */
  const editAttempts = new Map<string, number>();
  /** Copies being edited now, with the fingerprint they are being edited to: the same edit is not started twice. */
  const editing = new Map<string, string>();

  /**
   * Edits every copy of `record` this bot delivered whose recorded rendering differs from what it shows now, all at
   * once (the platform's own queue paces them).
   */
  async function updateCopies(record: QuestionRecord): Promise<void> {
    await Promise.all(record.deliveries.filter((d) => d.surface === surface).map((delivery) => updateCopy(record, delivery)));
  }

  async function updateCopy(record: QuestionRecord, delivery: Delivery): Promise<void> {
    // A platform that cannot edit replies to the copy instead: a pending copy already shows its prompt.
    if (adapter.edits === false && record.status === "pending") return;
    const nowMs = now();
    const rendered = fingerprintOf(record, delivery.chat, nowMs);
    if (rendered && delivery.rendered === rendered) return; // already shows this
    const key = `${record.id}\u0000${delivery.chat}`;
    if (rendered && editing.get(key) === rendered) return; // being edited to this now
    if (rendered) editing.set(key, rendered);
    try {
      await adapter.updatePrompt(record, delivery, nowMs);
    } catch (error) {
      log(`could not update ${record.id} in ${surface}:${delivery.chat}`, error);
      editLater(record.id, delivery.chat, key);
      return;
    } finally {
      onSettled();
      if (editing.get(key) === rendered) editing.delete(key);
    }
    editAttempts.delete(key);
    if (rendered) await copyRendered(record.id, delivery.chat, rendered);
  }

  /** An edit failed after the framework's own retries: tried again with the send backoff, a few times. */
  function editLater(id: string, chat: string, key: string): void {
    const attempt = (editAttempts.get(key) ?? 0) + 1;
    if (attempt > EDIT_TRIES_MAX) {
      editAttempts.delete(key); // the next resync (or restart) edits it, as a copy that is behind
      return;
    }
    editAttempts.set(key, attempt);
    const timer = clock.setTimeout(() => {
      const record = cache.get(id);
      const delivery = record?.deliveries.find((d) => d.surface === surface && d.chat === chat);
      if (record && delivery) void updateCopy(record, delivery);
      else editAttempts.delete(key);
    }, sendRetryDelayMs(attempt, sendRetry));
    timer.unref?.();
  }

  /** Records what a copy shows now, here and at the gateway, so a restart does not edit it again. */
  async function copyRendered(id: string, chat: string, rendered: string): Promise<void> {
    cache.setRendered(id, surface, chat, rendered);
    try {
      await client.copyRendered({ id, surface, chat, rendered });
    } catch (error) {
      log(`could not record what the copy of ${id} in ${surface}:${chat} shows`, error);
    }
  }

  return { updateCopies };
}
