/**
 * What an activity's token lets it do (issue 37 §3). The SDK accepts any token for TEAMS_APP_ID from an issuer it
 * trusts, and that includes the tenant's own Entra authority: anyone in the tenant can get such a token for the app,
 * and it names no `serviceurl`, so the SDK's own check lets its activity carry any serviceUrl. Three rules close that:
 * - the serviceUrl of every activity and every stored reference must be on TEAMS_SERVICE_URL_HOSTS (the SDK's
 *   outbound host check, with this list as its policy: it refuses such an activity with 400 and never sends there);
 * - an activity whose token names no service URL cannot move a stored reference to another origin (references.ts);
 * - only an activity the Bot Framework signed names a person or is handled at all (inbound.ts): a tenant's token is
 *   not the channel speaking, so its `from` is nobody's word.
 */
import type { OutboundUrlPolicy } from "@microsoft/agents-hosting";

/**
 * The issuers whose tokens are the Bot Framework's: the channel's own (`https://api.botframework.com`, `.us` in the
 * US Government cloud), and the Entra tenants the Bot Framework issues from (botframework.com, Microsoft Services;
 * in the US Government cloud, its one), the tokens botbuilder's channel and emulator validation accept. Nobody
 * outside Microsoft can get a token from these tenants for this bot's app; anyone in the bot's tenant can from that.
 */
export const BOT_FRAMEWORK_ISSUERS: ReadonlySet<string> = new Set(
  [
    "https://api.botframework.com",
    "https://api.botframework.us",
    ...["d6d49420-f39b-4df7-a1dc-d59a935871db", "f8cdef31-a31e-4b4a-93e4-5f571e91255a"].flatMap((t) => [`https://sts.windows.net/${t}/`, `https://login.microsoftonline.com/${t}/v2.0`]),
    "https://sts.windows.net/cab8a31a-1906-4287-a0d8-4eef66b95f6e/",
    "https://login.microsoftonline.us/cab8a31a-1906-4287-a0d8-4eef66b95f6e/v2.0",
  ].map((issuer) => issuer.toLowerCase()),
);

/** The claims of a verified token the bot reads (the SDK's `TurnContext.identity`). */
export interface TokenClaims {
  iss?: unknown;
  serviceurl?: unknown;
}

export interface ActivityTrust {
  /** The token's issuer is the Bot Framework: its activity is Teams speaking, and its `from` is the person. */
  botFramework: boolean;
  /** The token names the service URL it was issued for (the SDK checked the activity's host against it). */
  namesServiceUrl: boolean;
  /** The issuer, for the log. */
  issuer: string;
}

export function trustOf(claims: TokenClaims | undefined): ActivityTrust {
  const issuer = typeof claims?.iss === "string" ? claims.iss : "";
  return { botFramework: BOT_FRAMEWORK_ISSUERS.has(issuer.toLowerCase()), namesServiceUrl: typeof claims?.serviceurl === "string" && claims.serviceurl !== "", issuer };
}

/** Whether a host is on the list: an entry is that host, or with `*.` any subdomain of the rest. */
export function hostAllowed(host: string, hosts: readonly string[]): boolean {
  const name = host.toLowerCase().replace(/\.$/u, "");
  return hosts.some((entry) => (entry.startsWith("*.") ? name.endsWith(entry.slice(1)) && name.length > entry.length - 1 : name === entry));
}

const LOOPBACK = /^(localhost|127(?:\.\d{1,3}){3}|\[::1\])$/u;

/** The SDK's outbound host policy (CloudAdapter's last argument): on, with exactly these hosts. */
export function createServiceUrlPolicy(hosts: readonly string[]): OutboundUrlPolicy {
  return {
    enabled: true,
    isAllowed(input) {
      if (!input) return false;
      try {
        const url = input instanceof URL ? input : new URL(input);
        // Plain http only on the loopback (a local fake or proxy): the bot's token never crosses a network in clear.
        const secure = url.protocol === "https:" || (url.protocol === "http:" && LOOPBACK.test(url.hostname));
        return secure && hostAllowed(url.hostname, hosts);
      } catch {
        return false;
      }
    },
  };
}

/** A service URL's origin (scheme, host, port), what a token naming none cannot change; undefined if it is no URL. */
export function originOf(serviceUrl: string): string | undefined {
  try {
    return new URL(serviceUrl).origin.toLowerCase();
  } catch {
    return undefined;
  }
}
