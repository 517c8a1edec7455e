/**
 * Each registered platform's descriptor (src/platforms/<platform>/platform.ts), by name. The names are the registry's
 * (./index.ts); the type below makes a missing or an extra descriptor a compile error, so the two cannot drift.
 * The descriptors are pure leaves: they import no renderer and nothing of src/ outside src/platforms.
 */
import { discord } from "./discord/platform.ts";
import { email } from "./email/platform.ts";
import type { PlatformDescriptor } from "./kit/descriptor.ts";
import { PLATFORM_NAMES, isPlatform, type PlatformName } from "./index.ts";
import { mattermost } from "./mattermost/platform.ts";
import { matrix } from "./matrix/platform.ts";
import { slack } from "./slack/platform.ts";
import { teams } from "./teams/platform.ts";
import { telegram } from "./telegram/platform.ts";
import { whatsapp } from "./whatsapp/platform.ts";

export const PLATFORMS = { telegram, discord, slack, whatsapp, mattermost, teams, matrix, email } as const satisfies { [N in PlatformName]: { surface: N } };

export type Platform = (typeof PLATFORMS)[PlatformName];
export type { PlatformDescriptor };

/** The descriptors, in registry order. */
export const PLATFORM_LIST: readonly Platform[] = PLATFORM_NAMES.map((name) => PLATFORMS[name]);

type UnionToIntersection<U> = (U extends unknown ? (u: U) => void : never) extends (i: infer I) => void ? I : never;
/** Every platform's environment variables, as one zod shape (src/runtime/config.ts spreads it into the schema). */
export type PlatformEnvShape = UnionToIntersection<ReturnType<Platform["env"]>>;
/** The platforms' secret variables. */
export type PlatformSecret = Platform["secrets"][number];
/** The variables that make `start` run a bot. */
export type PlatformTokenVar = Platform["tokenVar"];

/** "cannot reach the Bot API": what a platform's API is called in errors; undefined for a name nobody registered. */
export function platformApiName(surface: string): string | undefined {
  return isPlatform(surface) ? PLATFORMS[surface].apiName : undefined;
}

/** `telegram:123456789`: a target on each platform, for help and errors. */
export const EXAMPLE_TARGETS: readonly string[] = PLATFORM_LIST.map((p) => `${p.surface}:${p.exampleChat}`);
