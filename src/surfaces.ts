/**
 * The one registry of surfaces: every place that lists platforms (the contract's SURFACES, the renderer's button
 * surfaces, the summary's "in Telegram", the CLI's `bot` command and `start`'s bots) reads it from here. Adding a
 * platform starts with one entry below.
 */

interface SurfaceEntry {
  /** How a summary says where an answer came from: "answered in Telegram by Ada". */
  where: string;
  /** Native buttons for one single-select question. */
  buttons: boolean;
  /** The bot process `ask-user-bridge bot NAME` runs, and the variable `start` checks before starting it. */
  bot?: { tokenVar: "TELEGRAM_BOT_TOKEN" | "DISCORD_BOT_TOKEN" | "SLACK_BOT_TOKEN" };
}

export const SURFACE_REGISTRY = {
  telegram: { where: "in Telegram", buttons: true, bot: { tokenVar: "TELEGRAM_BOT_TOKEN" } },
  discord: { where: "in Discord", buttons: true, bot: { tokenVar: "DISCORD_BOT_TOKEN" } },
  slack: { where: "in Slack", buttons: true, bot: { tokenVar: "SLACK_BOT_TOKEN" } },
  web: { where: "on the web", buttons: false },
} as const satisfies Record<string, SurfaceEntry>;

export type Surface = keyof typeof SURFACE_REGISTRY;

/** Every surface a question can target. */
export const SURFACES = Object.keys(SURFACE_REGISTRY) as [Surface, ...Surface[]];

/** Chat surfaces with native buttons (the web Control UI draws its own stepper, so it is not one). */
export const BUTTON_SURFACES: readonly Surface[] = SURFACES.filter((s) => SURFACE_REGISTRY[s].buttons);

/** The surfaces that have a bot process. */
export type BotName = { [S in Surface]: (typeof SURFACE_REGISTRY)[S] extends { bot: object } ? S : never }[Surface];
export const BOT_NAMES = SURFACES.filter((s): s is BotName => "bot" in SURFACE_REGISTRY[s]);

/** Callers that are not a surface but may resolve questions (the protocol and the CLI), for summaries. */
const OTHER_RESOLVERS: Record<string, string> = { api: "via the API", cli: "via the CLI" };

/** "in Telegram", "on the web", "via the API"; undefined for a name nobody registered. */
export function whereAnswered(surface: string): string | undefined {
  const key = surface.toLowerCase();
  if (Object.hasOwn(SURFACE_REGISTRY, key)) return SURFACE_REGISTRY[key as Surface].where;
  return Object.hasOwn(OTHER_RESOLVERS, key) ? OTHER_RESOLVERS[key] : undefined;
}

export function isSurface(name: string): name is Surface {
  return Object.hasOwn(SURFACE_REGISTRY, name);
}
