/**
 * Prompt sends still waiting for the platform's answer, by target chat. A person can reply to a prompt the moment
 * it appears, before the bot has read the platform's response to its send and so before it knows the prompt's
 * message id: a reply that matches nothing waits for the sends in flight to that chat (briefly), then looks again.
 */
export function createInflightSends() {
  const byChat = new Map<string, Set<Promise<unknown>>>();

  return {
    /** Tracks one send to `chat` until it settles; returns the same promise. */
    track<T>(chat: string, send: Promise<T>): Promise<T> {
      let sends = byChat.get(chat);
      if (!sends) byChat.set(chat, (sends = new Set()));
      sends.add(send);
      const done = () => {
        sends.delete(send);
        if (sends.size === 0 && byChat.get(chat) === sends) byChat.delete(chat);
      };
      send.then(done, done);
      return send;
    },
    /** Whether a send to `chat` is in flight. */
    has: (chat: string): boolean => byChat.has(chat),
    /**
     * Resolves when every send to `chat` in flight now has settled and its outcome was taken in (the delivery loop
     * notes the copy as soon as its send resolves), or after `maxMs`, whichever comes first.
     */
    async settled(chat: string, maxMs: number): Promise<void> {
      const sends = [...(byChat.get(chat) ?? [])];
      if (sends.length === 0) return;
      let timer: NodeJS.Timeout | undefined;
      const cap = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, maxMs);
        timer.unref?.();
      });
      await Promise.race([Promise.allSettled(sends), cap]);
      clearTimeout(timer);
      await new Promise<void>((resolve) => setImmediate(resolve));
    },
  };
}

export type InflightSends = ReturnType<typeof createInflightSends>;
