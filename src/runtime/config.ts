import { z } from "zod";
import { LOG_LEVELS } from "./log-level.ts";
import { parseTargetList } from "../record/targets.ts";
import { ENV_KIT } from "../platforms/kit/env.ts";
import { PLATFORM_LIST, type PlatformEnvShape, type PlatformSecret } from "../platforms/descriptors.ts";
import { GATEWAY_NAME_PATTERN } from "./gateway-registry.ts";
import { parseAddressRanges } from "../kernel/address-ranges.ts";

const { port, url } = ENV_KIT;

/** A shorter shared secret is refused at start (issue #17: tokens were guessed at thousands a second). */
export const GATEWAY_TOKEN_MIN_LENGTH = 32;

/** Comma-separated targets (`SURFACE:CHAT`, `SURFACE:CHAT:U1+U2`, `web`), each checked by parseTargetList. */
const targetList = z
    .string()
    .optional()
    .transform((v, ctx) => {
      try {
        return parseTargetList(v ?? "");
      } catch (error) {
        ctx.addIssue({ code: "custom", message: (error as Error).message });
        return z.NEVER;
      }
    });

/** Every platform's environment variables: the descriptors' zod fragments, one after the other. */
const platformEnv = Object.assign({}, ...PLATFORM_LIST.map((p) => p.env(ENV_KIT))) as PlatformEnvShape;

/** Issue 29 §4: comma-separated http(s) URLs the gateway POSTs each resolution and late answer to. */
const webhookUrls = z
  .string()
  .optional()
  .transform((v, ctx) => {
    const urls = (v ?? "").split(",").map((part) => part.trim()).filter((part) => part !== "");
    for (const text of urls) {
      let parsed: URL | undefined;
      try {
        parsed = new URL(text);
      } catch {
        // reported below
      }
      if (!parsed || (parsed.protocol !== "http:" && parsed.protocol !== "https:")) {
        ctx.addIssue({ code: "custom", message: `"${text}" is not an http:// or https:// URL (comma-separated URLs, e.g. https://n8n.example.com/webhook/ask-user)` });
      } else if (parsed.username || parsed.password) {
        ctx.addIssue({ code: "custom", message: `"${parsed.host}…" holds a user name or password; put the credentials in the receiver, or a secret path segment` });
      }
    }
    return [...new Set(urls)];
  });

/** The Standard Webhooks secret sizes (its spec: 24 to 64 bytes). */
export const WEBHOOK_SECRET_BYTES = { min: 24, max: 64 } as const;

/**
 * `whsec_<base64>` (the Standard Webhooks form), or the base64 alone (the `standardwebhooks` package takes both), of
 * 24 to 64 random bytes.
 */
const webhookSecret = z
  .string()
  .trim()
  .optional()
  .transform((v) => (v ? v : undefined))
  .refine(
    (v) => {
      if (v === undefined) return true;
      const base64 = v.startsWith("whsec_") ? v.slice("whsec_".length) : v;
      if (!/^[A-Za-z0-9+/]+={0,2}$/.test(base64) || base64.length % 4 !== 0) return false;
      const bytes = Buffer.from(base64, "base64").length;
      return bytes >= WEBHOOK_SECRET_BYTES.min && bytes <= WEBHOOK_SECRET_BYTES.max;
    },
    `must be whsec_ and the base64 of ${WEBHOOK_SECRET_BYTES.min} to ${WEBHOOK_SECRET_BYTES.max} random bytes (or that base64 alone): make one with \`echo "whsec_$(openssl rand -base64 32)"\``,
  );

export const configSchema = z.object({
  GATEWAY_HOST: z.string().trim().min(1).default("127.0.0.1"),
  GATEWAY_PORT: port.default(8787),
  GATEWAY_TOKEN: z
    .string()
    .trim()
    .optional()
    .transform((v) => (v ? v : undefined))
    .refine(
      (v) => v === undefined || v.length >= GATEWAY_TOKEN_MIN_LENGTH,
      `must be at least ${GATEWAY_TOKEN_MIN_LENGTH} characters, and random: make one with \`openssl rand -hex 32\` (or leave it unset, and the gateway generates one)`,
    ),
  /** Open WebSocket connections at most; past it, upgrades get 503 (64 of them may be unauthenticated). */
  GATEWAY_MAX_CONNECTIONS: z.coerce.number().int().min(1).max(1_000_000).default(1_000),
  GATEWAY_MAX_CONNECTIONS_PER_CREDENTIAL: z.coerce.number().int().min(1).max(1_000_000).default(100),
  /**
   * The reverse proxies (addresses or CIDR ranges, comma-separated) whose X-Forwarded-For names the client that the
   * token backoff counts a request under; without it, every client behind a proxy counts as the proxy.
   */
  GATEWAY_TRUSTED_PROXIES: z
    .string()
    .optional()
    .transform((v, ctx) => {
      const parsed = parseAddressRanges(v ?? "");
      if (parsed.ok) return parsed.ranges;
      ctx.addIssue({ code: "custom", message: parsed.message });
      return z.NEVER;
    }),
  GATEWAY_URL: url,
  /**
   * Which recorded gateway (`$XDG_CONFIG_HOME/ask-user-bridge/gateway.json`) `start`/`gateway` record themselves as,
   * and clients use when nothing else says where the gateway is; `--gateway NAME` on any command sets it.
   */
  GATEWAY_NAME: z
    .string()
    .trim()
    .regex(GATEWAY_NAME_PATTERN, "must be a name of letters, digits, `.`, `_` or `-` (at most 64)")
    .optional(),
  /** The address people open the Control UI at when it is not localhost (a proxy, a LAN name); its host is accepted besides localhost. */
  GATEWAY_PUBLIC_URL: z
    .string()
    .trim()
    .transform((v) => (v === "" ? undefined : v))
    .pipe(z.url({ protocol: /^https?$/ }).optional())
    .optional(),
  DATA_DIR: z.string().trim().min(1).default("./data"),
  STORE: z.enum(["sqlite", "memory"]).default("sqlite"),
  /** PostgreSQL instead of SQLite: any number of gateway instances may share one database. */
  DATABASE_URL: z
    .string()
    .trim()
    .transform((v) => (v === "" ? undefined : v))
    .pipe(z.url({ protocol: /^postgres(ql)?$/, error: "must be a postgres:// or postgresql:// URL" }).optional())
    .optional(),
  /** A second token that reads /metrics only (the gateway token does too). */
  METRICS_TOKEN: z
    .string()
    .trim()
    .optional()
    .transform((v) => (v ? v : undefined))
    .refine((v) => v === undefined || v.length >= GATEWAY_TOKEN_MIN_LENGTH, `must be at least ${GATEWAY_TOKEN_MIN_LENGTH} characters, and random: \`openssl rand -hex 32\``),
  /** /metrics without a token (behind a proxy or on a private network). */
  METRICS_PUBLIC: z
    .string()
    .trim()
    .optional()
    .transform((v, ctx) => {
      if (v === undefined || v === "" || /^(0|false)$/i.test(v)) return false;
      if (/^(1|true)$/i.test(v)) return true;
      ctx.addIssue({ code: "custom", message: 'must be "1" or "true" (or "0", "false", unset)' });
      return z.NEVER;
    }),
  /** How much the processes log (src/runtime/log.ts); question and answer text only at debug. */
  LOG_LEVEL: z
    .string()
    .trim()
    .toLowerCase()
    .transform((v) => v || "info")
    .pipe(z.enum(LOG_LEVELS, { error: `must be one of ${LOG_LEVELS.join(", ")}` }))
    .default("info"),
  DELIVERY_TIMEOUT_SECONDS: z.coerce.number().positive().max(3600).default(30),
  /** How often a bot checks that its platform's API answers (bots/platform-watch.ts), for /readyz. */
  BOT_PLATFORM_CHECK_SECONDS: z.coerce.number().min(1).max(3600).default(60),
  ASK_DEFAULT_TARGETS: targetList,
  /** Every target a question may reach; empty: any target. */
  ASK_ALLOWED_TARGETS: targetList,
  /** Pending questions one run may hold (callers other than the admin GATEWAY_TOKEN). */
  ASK_MAX_PENDING_PER_RUN: z.coerce.number().int().min(1).max(100_000).default(50),
  /** Pending questions one scoped agent credential may hold. */
  ASK_MAX_PENDING_PER_CREDENTIAL: z.coerce.number().int().min(1).max(100_000).default(200),
  /**
   * Default reminders, as comma-separated offsets in seconds before expiry (`600,120`); `none` (or `0`): no
   * reminders. Unset: one reminder when a third of the timeout is left, none for timeouts under 2 minutes.
   */
  REMIND_BEFORE_SECONDS: z
    .string()
    .trim()
    .optional()
    .transform((v, ctx) => {
      if (v === undefined || v === "") return undefined;
      if (/^(none|off|0)$/i.test(v)) return [] as number[];
      const offsets = v.split(",").map((part) => part.trim());
      const bad = offsets.find((o) => !/^[1-9][0-9]{0,4}$/.test(o));
      if (bad !== undefined || offsets.length > 5) {
        ctx.addIssue({ code: "custom", message: `must be up to 5 comma-separated whole seconds (1-86400), or "none"; got "${v}"` });
        return z.NEVER;
      }
      return [...new Set(offsets.map(Number))].sort((a, b) => b - a);
    }),
  /** How long after expiry a late answer is still taken, in seconds (default 86400, 24 h; 0: never; at most 7 days). */
  LATE_ANSWER_SECONDS: z.coerce.number().int().min(0).max(7 * 24 * 60 * 60).default(86_400),
  /** Test-only: lowers the 30 s timeout floor so expiry can be tested quickly. Never part of the contract. */
  ASK_TEST_MIN_TIMEOUT_SECONDS: z.coerce.number().positive().max(30).optional(),

  /** Webhooks (issue 29 §4): both or neither; see loadConfig. */
  WEBHOOK_URLS: webhookUrls,
  WEBHOOK_SECRET: webhookSecret,
  /** How long one webhook POST may take before it counts as failed (and is retried). */
  WEBHOOK_TIMEOUT_SECONDS: z.coerce.number().positive().max(60).default(10),

  /** Each platform's variables, from its descriptor (src/platforms/<platform>/platform.ts), in registry order. */
  ...platformEnv,
});

export type Config = z.output<typeof configSchema>;

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Configuration error:\n${problems.map((p) => `  - ${p}`).join("\n")}\nSee .env.example for every variable.`);
    this.name = "ConfigError";
  }
}

/** Reads and validates the environment. Throws ConfigError naming every missing or bad variable. */
export function loadConfig(env: Record<string, string | undefined>): Config {
  // `NAME=` in .env means unset, so defaults apply.
  const given = Object.fromEntries(Object.entries(env).filter(([, value]) => value !== undefined && value.trim() !== ""));
  const result = configSchema.safeParse(given);
  if (result.success) {
    const { WEBHOOK_URLS: urls, WEBHOOK_SECRET: secret } = result.data;
    // Unsigned webhooks would be forgeable, and a secret without URLs is a forgotten setting: refuse both halves.
    if (urls.length > 0 && secret === undefined) throw new ConfigError(["WEBHOOK_SECRET: is required when WEBHOOK_URLS is set (webhooks are always signed)"]);
    if (urls.length === 0 && secret !== undefined) throw new ConfigError(["WEBHOOK_URLS: is required when WEBHOOK_SECRET is set (or leave both unset: no webhooks)"]);
    return result.data;
  }
  throw new ConfigError(result.error.issues.map((issue) => `${String(issue.path[0] ?? "env")}: ${issue.message}`));
}

/** Like loadConfig, but also requires the named variables (e.g. a bot's token). */
export function requireConfig<K extends keyof Config>(config: Config, keys: K[]): Config & { [P in K]-?: NonNullable<Config[P]> } {
  const missing = keys.filter((key) => config[key] === undefined || config[key] === "");
  if (missing.length) throw new ConfigError(missing.map((key) => `${String(key)}: is required`));
  return config as Config & { [P in K]-?: NonNullable<Config[P]> };
}

/**
 * The bots' secrets. When the gateway's environment holds them (`start` runs the gateway and the bots from one .env),
 * no answer may contain one, nor the gateway token: see createKnownSecretMatcher.
 */
export const BOT_SECRETS: readonly PlatformSecret[] = PLATFORM_LIST.flatMap((p) => p.secrets);

/**
 * This deployment's secrets: the gateway token, the metrics token, the bots' and the webhook secret. No log line may hold one
 * (createLogger), and no answer (the gateway's knownSecrets, with the token it uses, generated or not).
 */
export function deploymentSecrets(config: Partial<Pick<Config, "GATEWAY_TOKEN" | "METRICS_TOKEN" | "WEBHOOK_SECRET" | (typeof BOT_SECRETS)[number]>>): (string | undefined)[] {
  return [config.GATEWAY_TOKEN, config.METRICS_TOKEN, ...BOT_SECRETS.map((key) => config[key]), ...webhookSecretForms(config.WEBHOOK_SECRET)];
}

/** The webhook secret as written, and its base64 alone (a log line or an answer may hold either). */
function webhookSecretForms(secret: string | undefined): string[] {
  if (secret === undefined) return [];
  return secret.startsWith("whsec_") ? [secret, secret.slice("whsec_".length)] : [secret];
}
