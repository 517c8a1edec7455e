import type { Clock, ClockTimer } from "../../kernel/clock.ts";
import type { QuestionRecord, Target } from "../../record/record.ts";
import { isChatTarget, noBotReason } from "../../record/targets.ts";
import { PLATFORM_SURFACES } from "../../platforms/index.ts";
import type { QuestionStore } from "../store/kit/types.ts";

export { noBotReason };

/** How often an instance refreshes its bots' presence in a shared store, and how long a refresh counts. */
const PRESENCE_REFRESH_MS = 10_000;
const PRESENCE_FRESH_MS = 30_000;
/** How long one read of the shared presence is reused for the surfaces it found (a burst of questions reads it once). */
const PRESENCE_CACHE_MS = 2_000;
const PRESENCE_MISS_CACHE_MS = 250;

/**
 * A chat target with no bot connected (issue 30): which chat surfaces have a bot connected to this gateway (the
 * server reports its connections), or, on a shared store, to any instance (`store.botPresence`, refreshed every
 * 10 s while a bot is connected here). `mark` gives each chat target of a record that no bot can send yet the
 * `waiting` state, at once; the delivery watch is left as it is, so a bot that starts late still delivers.
 */
export function createNoBot({ store, clock, log }: { store: QuestionStore; clock: Clock; log: (message: string, error?: unknown) => void }) {
  const now = () => clock.now();
  let here: ReadonlySet<string> = new Set();
  let timer: ClockTimer | undefined;
  let stopped = false;
  let cached: { atMs: number; surfaces: Promise<ReadonlySet<string>> } | undefined;
  const presence = store.botPresence;

  function publish(): void {
    presence?.publish([...here]).catch((error: unknown) => log("could not record this instance's bots in the store", error));
  }

  /**
   * The surfaces with a bot connected here or anywhere. A read of the shared table is reused for 2 s for the
   * surfaces it found, and for 250 ms for those it did not (a bot that just connected elsewhere is seen soon).
   */
  async function connected(wanted: readonly string[]): Promise<ReadonlySet<string>> {
    if (!presence) return here;
    const age = cached ? now() - cached.atMs : Infinity;
    const last = age <= PRESENCE_CACHE_MS ? await cached!.surfaces : undefined;
    if (!last || (age > PRESENCE_MISS_CACHE_MS && !wanted.every((s) => last.has(s)))) {
      const surfaces = presence.connected(PRESENCE_FRESH_MS).then(
        (list): ReadonlySet<string> => new Set(list),
        (error: unknown) => {
          // Cannot tell: say nothing rather than that no bot is connected.
          log("could not read which bots are connected", error);
          return new Set(Object.keys(PLATFORM_SURFACES));
        },
      );
      cached = { atMs: now(), surfaces };
    }
    return new Set([...here, ...(await cached!.surfaces)]);
  }

  /** The chat targets among `targets` no bot can send yet (none delivered, no state reported). */
  async function unserved(record: QuestionRecord, targets: readonly Target[]): Promise<Target[]> {
    const open = targets.filter(
      (t) =>
        isChatTarget(t) &&
        t.chat !== undefined &&
        !here.has(t.surface) &&
        !record.deliveries.some((d) => d.surface === t.surface && d.chat === t.chat) &&
        !record.targetStates?.some((s) => s.surface === t.surface && s.chat === t.chat),
    );
    if (open.length === 0) return [];
    const surfaces = await connected(open.map((t) => t.surface));
    return open.filter((t) => !surfaces.has(t.surface));
  }

  return {
    /**
     * The chat surfaces with a bot connected to this gateway now (the server calls it on every change). On a shared
     * store they are published at once, then refreshed while any is connected.
     */
    botsHere(surfaces: Iterable<string>): void {
      const next = new Set(surfaces);
      if (stopped || (next.size === here.size && [...next].every((s) => here.has(s)))) return;
      here = next;
      cached = undefined;
      if (!presence) return;
      publish();
      if (here.size > 0 && !timer) {
        timer = clock.setInterval(publish, PRESENCE_REFRESH_MS);
        timer.unref?.();
      } else if (here.size === 0 && timer) {
        clock.clearInterval(timer);
        timer = undefined;
      }
    },

    /**
     * Sets `waiting` ("no <Platform> bot is connected") on the record's chat targets (or only `targets`, an
     * escalation step's) that no bot can send yet. Returns the record as stored after, or as given when none.
     */
    async mark(record: QuestionRecord, targets: readonly Target[] = record.targets): Promise<QuestionRecord> {
      let current = record;
      try {
        for (const { surface, chat } of await unserved(record, targets)) {
          const next = await store.setTargetState(record.id, { surface, chat: chat!, state: "waiting", reason: noBotReason(surface), atMs: now() });
          if (next) current = next;
        }
      } catch (error) {
        // The question stands; only the early word is lost (the delivery watch still names the cause).
        log(`could not mark question ${record.id} as waiting for a bot`, error);
      }
      return current;
    },

    /** The service stopped: no more publishing (the store, closing, drops this instance's rows itself). */
    stop(): void {
      stopped = true;
      clock.clearInterval(timer);
      timer = undefined;
    },
  };
}

export type NoBot = ReturnType<typeof createNoBot>;
