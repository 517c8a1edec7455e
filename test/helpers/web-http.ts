/** The Control UI over plain HTTP, as a browser would use it: sign in with the form, then cookie-authenticated calls. */
import { request as httpRequest, type IncomingHttpHeaders } from "node:http";

export interface HttpAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
}

export function send(base: string, path: string, { method = "GET", headers = {}, body }: { method?: string; headers?: Record<string, string>; body?: string } = {}): Promise<HttpAnswer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(new URL(path, base), { method, headers: { ...(body === undefined ? {} : { "content-length": String(Buffer.byteLength(body)) }), ...headers } }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString("utf8") }));
    });
    req.on("error", reject);
    req.end(body);
  });
}

export const FORM = { "content-type": "application/x-www-form-urlencoded" };

/** Signs in with the form, as the page does; the cookie pair to send back, or the sign-in page's answer. */
export async function signIn(base: string, token: string, headers: Record<string, string> = {}): Promise<{ cookie?: string; res: HttpAnswer }> {
  const res = await send(base, "/login", { method: "POST", headers: { ...FORM, origin: base, ...headers }, body: `token=${encodeURIComponent(token)}` });
  const setCookie = res.headers["set-cookie"]?.[0];
  return setCookie && res.status === 303 ? { cookie: setCookie.split(";")[0]!, res } : { res };
}

export async function call(base: string, method: string, params: unknown, auth: { cookie: string } | { bearer: string }, extra: Record<string, string> = {}) {
  const headers: Record<string, string> = { "content-type": "application/json", ...("cookie" in auth ? { cookie: auth.cookie, origin: base } : { authorization: `Bearer ${auth.bearer}` }), ...extra };
  const res = await send(base, `/rpc/${method}`, { method: "POST", headers, body: JSON.stringify(params) });
  return { status: res.status, body: JSON.parse(res.text) };
}

export const until = async (check: () => Promise<boolean>, what: string, timeoutMs = 15_000) => {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
};

