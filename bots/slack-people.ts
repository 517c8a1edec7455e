import type { webApi } from "@slack/bolt";
import type { Log } from "./shared.ts";

const NAME_TTL_MS = 60 * 60_000;
const FAILED_TTL_MS = 60_000;
/** A name is nice to have in summaries, never worth holding up an answer. */
const LOOKUP_MAX_MS = 2_000;

/**
 * Display names for summaries ("answered in Slack by Ada"), from users.info (scope users:read), cached.
 * Without the scope, or when Slack is slow, the event's own username (or nothing) is used.
 */
export function createSlackPeople(client: webApi.WebClient, log: Log) {
  const names = new Map<string, { name: string | undefined; untilMs: number }>();

  async function lookup(user: string): Promise<string | undefined> {
    try {
      const { user: found } = await client.users.info({ user });
      const name = found?.profile?.display_name || found?.real_name || found?.profile?.real_name || found?.name;
      names.set(user, { name: name || undefined, untilMs: Date.now() + NAME_TTL_MS });
      return name || undefined;
    } catch (error) {
      log(`could not look up the name of ${user}`, error);
      names.set(user, { name: undefined, untilMs: Date.now() + FAILED_TTL_MS });
      return undefined;
    }
  }

  return {
    async nameOf(user: string, fallback?: string): Promise<string | undefined> {
      const cached = names.get(user);
      if (cached && cached.untilMs > Date.now()) return cached.name ?? fallback;
      let resolveLate: (value: undefined) => void = () => {};
      const late = new Promise<undefined>((resolve) => (resolveLate = resolve));
      const timer = setTimeout(() => resolveLate(undefined), LOOKUP_MAX_MS);
      timer.unref();
      const name = await Promise.race([lookup(user), late]);
      clearTimeout(timer);
      return name ?? fallback;
    },
  };
}
export type SlackPeople = ReturnType<typeof createSlackPeople>;
