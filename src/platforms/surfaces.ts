/**
 * The surfaces a question can target: each chat platform of the registry (src/platforms/index.ts), and the web
 * Control UI, which is the core's own surface and not a chat platform (no bot, no SDK, no descriptor). Every place
 * that lists surfaces (the contract's SURFACES, the summary's "in <platform>", the
 * CLI's `bot` command and `start`'s bots) reads it from here, and so from the registry.
 */
import { PLATFORM_NAMES, PLATFORM_SURFACES, type PlatformName } from "./index.ts";

interface SurfaceEntry {
  /** How a summary says where an answer came from: "answered on the web by Ada". */
  where: string;
}

const CHAT_SURFACES = Object.fromEntries(PLATFORM_NAMES.map((name) => [name, { where: `in ${PLATFORM_SURFACES[name].title}` }])) as {
  readonly [N in PlatformName]: SurfaceEntry;
};

/** The chat platforms (their buttons, bots and the rest are in their descriptors: src/platforms/descriptors.ts) and the web. */
export const SURFACE_REGISTRY = {
  ...CHAT_SURFACES,
  web: { where: "on the web" },
} as const satisfies Record<string, SurfaceEntry>;

export type Surface = keyof typeof SURFACE_REGISTRY;

/** Every surface a question can target. */
export const SURFACES = Object.keys(SURFACE_REGISTRY) as [Surface, ...Surface[]];

/** The surfaces that have a bot process: the chat platforms. */
export type BotName = PlatformName;
export const BOT_NAMES: readonly BotName[] = PLATFORM_NAMES;

/** Callers that are not a surface but may resolve questions (the protocol and the CLI), for summaries. */
const OTHER_RESOLVERS: Record<string, string> = { api: "via the API", cli: "via the CLI" };

/** "in <platform>", "on the web", "via the API"; undefined for a name nobody registered. */
export function whereAnswered(surface: string): string | undefined {
  const key = surface.toLowerCase();
  if (Object.hasOwn(SURFACE_REGISTRY, key)) return SURFACE_REGISTRY[key as Surface].where;
  return Object.hasOwn(OTHER_RESOLVERS, key) ? OTHER_RESOLVERS[key] : undefined;
}

export function isSurface(name: string): name is Surface {
  return Object.hasOwn(SURFACE_REGISTRY, name);
}
