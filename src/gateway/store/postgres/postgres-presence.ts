import type { PostgresStatements } from "./postgres-pool.ts";
import type { BotPresence } from "../kit/types.ts";

/**
 * Which chat surfaces have a bot connected, across instances: each instance keeps one row per surface connected to
 * it (`bot_presence`, stamped with the database's clock), refreshed while the bot stays and deleted when it goes; a
 * row not refreshed within `freshMs` (its instance died) no longer counts.
 */
export function createPostgresPresence(statements: PostgresStatements, instanceId: string): BotPresence {
  return {
    async publish(surfaces) {
      await statements.query(
        "publishBotPresence",
        true,
        `WITH gone AS (DELETE FROM bot_presence WHERE instance = $1 AND NOT (surface = ANY($2::text[])))
         INSERT INTO bot_presence (instance, surface) SELECT $1, s FROM unnest($2::text[]) AS s
         ON CONFLICT (instance, surface) DO UPDATE SET seen_at = now()`,
        [instanceId, [...surfaces]],
      );
    },
    async connected(freshMs) {
      const rows = await statements.query<{ surface: string }>(
        "botPresence",
        false,
        `SELECT DISTINCT surface FROM bot_presence WHERE seen_at > now() - make_interval(secs => $1::double precision / 1000)`,
        [freshMs],
      );
      return rows.map((row) => row.surface);
    },
  };
}
