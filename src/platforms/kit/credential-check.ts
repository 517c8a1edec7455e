/**
 * A platform's credentials tried against its API with the one plain HTTP call its descriptor names
 * (`credentialCheck`): what `doctor` and `init` show, and what a running bot reports as its platform's reachability.
 */
import type { PlatformDescriptor } from "./descriptor.ts";

/** The outcome of one check. `unreachable` is the network (or a 5xx); `refused` is the platform saying no. */
export type CredentialVerdict =
  | { status: "ok"; who: string }
  | { status: "refused"; why: string }
  | { status: "unreachable"; why: string }
  | { status: "incomplete" }
  | { status: "uncheckable" };

/** Why a fetch failed, in a few words (`ECONNREFUSED`, `ENOTFOUND`, a timeout), never a stack. */
export function networkReason(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } })?.cause;
  if ((error as Error)?.name === "TimeoutError") return "no answer in time";
  return cause?.code ?? cause?.message ?? (error as Error)?.message ?? String(error);
}

export async function checkCredentials(
  platform: Pick<PlatformDescriptor, "credentialCheck">,
  env: Readonly<Record<string, unknown>>,
  timeoutMs = 10_000,
): Promise<CredentialVerdict> {
  if (!platform.credentialCheck) return { status: "uncheckable" };
  const request = platform.credentialCheck(env);
  if (!request) return { status: "incomplete" };
  let res: Response;
  try {
    res = await fetch(request.url, {
      method: request.method ?? "GET",
      ...(request.headers ? { headers: request.headers } : {}),
      ...(request.body !== undefined ? { body: request.body } : {}),
      signal: AbortSignal.timeout(timeoutMs),
    });
  } catch (error) {
    return { status: "unreachable", why: networkReason(error) };
  }
  const body: unknown = await res.json().catch(() => undefined);
  // A server error or a gateway in front of the API failing is the API not reachable, not the token refused.
  if (res.status >= 500) return { status: "unreachable", why: `HTTP ${res.status}` };
  const verdict = request.read(res.status, body);
  return "who" in verdict ? { status: "ok", who: verdict.who } : { status: "refused", why: verdict.why };
}
