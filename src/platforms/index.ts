/**
 * The registry of chat platforms: the one list of names. Everything in src/ that lists platforms derives from it and
 * from its companion src/platforms/descriptors.ts, which maps each name to its full descriptor and is checked against
 * this list by its type (a name without a descriptor, or a descriptor without a name, fails `tsc`).
 * This list holds only each platform's identity (its surface name and title) because the Control UI bundles it
 * (through src/platforms/surfaces.ts) and must stay small and free of zod; the descriptors hold everything else.
 * docs/ARCHITECTURE.md "Adding a platform" lists what a new platform takes.
 */
import { discordSurface } from "./discord/surface.ts";
import { emailSurface } from "./email/surface.ts";
import { mattermostSurface } from "./mattermost/surface.ts";
import { matrixSurface } from "./matrix/surface.ts";
import { slackSurface } from "./slack/surface.ts";
import { teamsSurface } from "./teams/surface.ts";
import { telegramSurface } from "./telegram/surface.ts";
import { whatsappSurface } from "./whatsapp/surface.ts";

export const PLATFORM_SURFACES = {
  telegram: telegramSurface,
  discord: discordSurface,
  slack: slackSurface,
  whatsapp: whatsappSurface,
  mattermost: mattermostSurface,
  teams: teamsSurface,
  matrix: matrixSurface,
  email: emailSurface,
} as const;

export type PlatformName = keyof typeof PLATFORM_SURFACES;
/** Each key names its own platform. */
PLATFORM_SURFACES satisfies { [N in PlatformName]: { surface: N; title: string } };

/** The platforms' names, in registry order. */
export const PLATFORM_NAMES = Object.keys(PLATFORM_SURFACES) as [PlatformName, ...PlatformName[]];

export function isPlatform(name: string): name is PlatformName {
  return Object.hasOwn(PLATFORM_SURFACES, name);
}
