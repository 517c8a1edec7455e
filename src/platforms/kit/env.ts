/**
 * The zod pieces environment variables are made of, the core's (src/runtime/config.ts) and each platform's. A platform's
 * descriptor takes them as an argument (`env(kit)`) and imports only their type, so the descriptors stay free of zod
 * at run time (the Control UI bundles the registry through src/platforms/surfaces.ts).
 */
import { z } from "zod";

const port = z.coerce.number().int().min(0).max(65_535);
/** Optional text; empty means unset. */
const optionalText = z
  .string()
  .trim()
  .transform((v) => (v === "" ? undefined : v))
  .optional();
/** An optional http(s) or ws(s) URL; empty means unset. */
const url = z
  .string()
  .trim()
  .transform((v) => (v === "" ? undefined : v))
  .pipe(z.url({ protocol: /^(https?|wss?)$/ }).optional())
  .optional();
/** Comma-separated user ids (a platform's allowed users). */
const idList = z
  .string()
  .optional()
  .transform((v, ctx) => {
    const ids = (v ?? "").split(",").map((s) => s.trim()).filter(Boolean);
    const bad = ids.find((id) => !/^[A-Za-z0-9_@.\-]{1,128}$/.test(id));
    if (bad) ctx.addIssue({ code: "custom", message: `"${bad}" is not a user id; use a comma-separated list of ids` });
    return ids;
  });

export const ENV_KIT = { z, port, optionalText, url, idList };
export type EnvKit = typeof ENV_KIT;
