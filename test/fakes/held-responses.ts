import type { ServerResponse } from "node:http";

/** One held response: the call is carried out at once (the message exists), but its answer waits for `release`. */
export interface HeldResponse {
  /** True once the held call came in and was carried out. */
  arrived(): boolean;
  release(): void;
}

/**
 * Lets a fake platform hold back its answer to the next call of a method, as a slow network does: people already see
 * the message the bot sent, and may answer it, before the bot has read the platform's response.
 */
export function createResponseHolds() {
  const queued = new Map<string, Array<{ gate: Promise<void>; release: () => void; arrived: boolean }>>();
  return {
    /** The next call of `method` (or route) is held until `release()`. */
    holdNext(method: string): HeldResponse {
      let release!: () => void;
      const gate = new Promise<void>((resolve) => (release = resolve));
      const hold = { gate, release, arrived: false };
      queued.set(method, [...(queued.get(method) ?? []), hold]);
      return { arrived: () => hold.arrived, release };
    },
    /** The gate a call of `method` must wait for before answering, if it is held. */
    take(method: string): Promise<void> | undefined {
      const hold = queued.get(method)?.shift();
      if (!hold) return undefined;
      hold.arrived = true;
      return hold.gate;
    },
  };
}

/** A response whose head and body go out only once `gate` opens, in the order they were written. */
export function heldResponse(res: ServerResponse, gate: Promise<void>): ServerResponse {
  return new Proxy(res, {
    get(target, name, receiver) {
      if (name === "writeHead" || name === "end") {
        return (...args: unknown[]) => {
          void gate.then(() => (target[name] as (...a: unknown[]) => unknown).apply(target, args));
          return receiver;
        };
      }
      const value = Reflect.get(target, name, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}
