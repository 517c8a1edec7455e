/**
 * A fake WhatsApp Cloud API: POST /{version}/{phone-number-id}/messages as Meta answers it (text, interactive list,
 * template, reaction, mark-as-read), recording every call and message, and enforcing what the bot must live with:
 * the access token, the list message's limits (10 rows, titles ≤ 24, descriptions ≤ 72, ids ≤ 200, button ≤ 20,
 * body ≤ 1024), a text's 4096, the 24-hour window (131047 for a free-form message to someone who has not written),
 * the per-recipient pair rate (131056) when a pace is set, and recipients that can never receive (131026).
 * Its other half is the person's side: a webhook sender that signs each POST with the app secret, as Meta does.
 */
import { createHmac } from "node:crypto";
import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";

export interface FakeBotMessage {
  id: string;
  to: string;
  type: "text" | "interactive" | "template";
  /** The text, or an interactive message's body text, or the template's name and parameters. */
  text: string;
  /** A list message's rows. */
  rows: Array<{ id: string; title: string; description?: string }>;
  /** The list's button label. */
  button?: string;
  /** The message it quotes (context.message_id). */
  replyTo?: string;
  template?: { name: string; language: string; parameters: string[] };
  atMs: number;
}

export interface FakePersonMessage {
  id: string;
  from: string;
  text?: string;
  /** A list selection's row id. */
  rowId?: string;
  replyTo?: string;
  /** The bot's reactions on it. */
  reactions: string[];
  /** Marked as read by the bot. */
  read: boolean;
  /** The webhook body that delivered it (for a re-delivery). */
  body: unknown;
}

export interface FakeCall {
  path: string;
  body: any;
  status: number;
  code?: number;
  atMs: number;
}

export interface PairPace {
  perSecond: number;
  burst: number;
}

interface Limits {
  rows: number;
  title: number;
  description: number;
  id: number;
  button: number;
  body: number;
  text: number;
}

/**
 * The limits' grace: a send up to this early is taken (as the other fakes' limits have one). Arrivals are stamped in
 * this process, which the bot shares: a stall of the event loop stamps requests that came spread out as one bunch.
 */
const GRACE_MS = 100;

const LIMITS: Limits = { rows: 10, title: 24, description: 72, id: 200, button: 20, body: 1024, text: 4096 };

export interface FakeWhatsAppOptions {
  accessToken: string;
  phoneNumberId: string;
  appSecret: string;
  /** The number's display number, for the webhook's metadata. */
  displayNumber?: string;
  /** Enforce the pair rate: a message to one recipient over this pace is refused with 131056. */
  pairPace?: PairPace;
  /** Enforce the number's throughput: a message over it is refused with 130429. */
  throughput?: PairPace;
}

/** A message taken and then reported failed in a status webhook, with this error. */
type RefusedLater = { code: number; title: string; afterMs?: number };

const error = (status: number, code: number, message: string) => ({ status, body: { error: { message, type: "OAuthException", code, error_data: { messaging_product: "whatsapp", details: message }, fbtrace_id: "Afake" } } });

export async function startFakeWhatsApp(options: FakeWhatsAppOptions) {
  const botMessages: FakeBotMessage[] = [];
  const personMessages: FakePersonMessage[] = [];
  const calls: FakeCall[] = [];
  /** Recipients who have not written in 24 hours: only a template reaches them. */
  const closedWindows = new Set<string>();
  /** Of those, the ones whose refusal comes later, as a failed status webhook. */
  const asyncRefusals = new Set<string>();
  /** Recipients WhatsApp can never deliver to. */
  const undeliverable = new Set<string>();
  /** Of those, the ones whose messages are taken and then reported failed (131026) in a status webhook. */
  const undeliverableLater = new Map<string, number>();
  const failures: Array<{ matches: (body: any) => boolean; status: number; code: number; message: string; times: number }> = [];
  const holds: Array<{ arrived: boolean; matches: (m: FakeBotMessage) => boolean; release: () => void; wait: Promise<void>; onArrive: (m: FakeBotMessage) => void }> = [];
  const pairBuckets = new Map<string, { tokens: number; atMs: number }>();
  let webhookUrl: string | undefined;
  let next = 1;
  const wamid = () => `wamid.FAKE${String(next++).padStart(8, "0")}`;

  const throughputBucket = { tokens: options.throughput?.burst ?? 0, atMs: performance.now() };
  function throughputLimited(atMs: number): boolean {
    const limit = options.throughput;
    if (!limit) return false;
    throughputBucket.tokens = Math.min(limit.burst, throughputBucket.tokens + ((atMs - throughputBucket.atMs) * limit.perSecond) / 1000);
    throughputBucket.atMs = atMs;
    if (throughputBucket.tokens < 1 - (limit.perSecond * GRACE_MS) / 1000) return true;
    throughputBucket.tokens = Math.max(0, throughputBucket.tokens - 1);
    return false;
  }

  function pairLimited(to: string, atMs: number): boolean {
    const pace = options.pairPace;
    if (!pace) return false;
    const bucket = pairBuckets.get(to) ?? { tokens: pace.burst, atMs };
    bucket.tokens = Math.min(pace.burst, bucket.tokens + ((atMs - bucket.atMs) * pace.perSecond) / 1000);
    bucket.atMs = atMs;
    pairBuckets.set(to, bucket);
    if (bucket.tokens < 1 - (pace.perSecond * GRACE_MS) / 1000) return true;
    bucket.tokens = Math.max(0, bucket.tokens - 1);
    return false;
  }

  /** Checks a message as the Cloud API does; an error's answer, or the message to record. */
  function accept(body: any, atMs: number): { status: number; body: unknown } | FakeBotMessage {
    const to = String(body.to ?? "");
    if (body.messaging_product !== "whatsapp") return error(400, 100, "(#100) The parameter messaging_product is required.");
    if (!/^[0-9]{5,20}$/.test(to)) return error(400, 100, "(#100) Invalid parameter: to");
    if (undeliverable.has(to) && !undeliverableLater.has(to)) return error(400, 131026, "Message undeliverable");
    const type = body.type ?? "text";
    const base = { id: wamid(), to, atMs, rows: [] as FakeBotMessage["rows"], ...(body.context?.message_id ? { replyTo: String(body.context.message_id) } : {}) };
    if (undeliverableLater.has(to)) return { ...base, type: "text", text: "", refusedLater: { code: 131026, title: "Message undeliverable", afterMs: undeliverableLater.get(to)! } } as FakeBotMessage & { refusedLater: RefusedLater };
    if (type === "template") {
      const t = body.template;
      if (!t?.name || !t.language?.code) return error(400, 131008, "Required parameter is missing: template");
      const parameters = (t.components ?? []).flatMap((c: any) => (c.parameters ?? []).map((p: any) => String(p.text)));
      return { ...base, type: "template", text: `[template ${t.name}] ${parameters.join(" | ")}`, template: { name: t.name, language: t.language.code, parameters } };
    }
    if (closedWindows.has(to)) {
      // As Meta mostly does it: the message is taken, and a status webhook reports it failed.
      if (asyncRefusals.has(to)) return { ...base, type: "text", text: "", refusedLater: { code: 131047, title: "Re-engagement message" } } as FakeBotMessage & { refusedLater: RefusedLater };
      return error(400, 131047, "Re-engagement message: more than 24 hours have passed since the recipient last replied to the sender number.");
    }
    if (throughputLimited(atMs)) return error(400, 130429, "Rate limit hit: Cloud API message throughput has been reached.");
    if (pairLimited(to, atMs)) return error(400, 131056, "(Business Account, Consumer Account) pair rate limit hit");
    if (type === "text") {
      const text = body.text?.body;
      if (typeof text !== "string" || text.length === 0) return error(400, 131008, "Required parameter is missing: text.body");
      if (text.length > LIMITS.text) return error(400, 131009, `Parameter value is not valid: text.body is over ${LIMITS.text} characters`);
      return { ...base, type: "text", text };
    }
    if (type === "interactive") {
      const i = body.interactive;
      if (i?.type !== "list") return error(400, 131009, "Parameter value is not valid: only list messages are faked");
      const text = i.body?.text;
      if (typeof text !== "string" || !text) return error(400, 131008, "Required parameter is missing: interactive.body.text");
      if (text.length > LIMITS.body) return error(400, 131009, `Parameter value is not valid: interactive.body.text is over ${LIMITS.body} characters`);
      const button = i.action?.button;
      if (typeof button !== "string" || !button || button.length > LIMITS.button) return error(400, 131009, `Parameter value is not valid: action.button must be 1-${LIMITS.button} characters`);
      const sections = i.action?.sections ?? [];
      const rows = sections.flatMap((s: any) => s.rows ?? []);
      if (sections.length > 1 && sections.some((s: any) => !s.title)) return error(400, 131009, "Parameter value is not valid: several sections need titles");
      if (rows.length === 0 || rows.length > LIMITS.rows) return error(400, 131009, `Parameter value is not valid: a list holds 1-${LIMITS.rows} rows`);
      const ids = new Set<string>();
      for (const row of rows) {
        if (typeof row.id !== "string" || !row.id || row.id.length > LIMITS.id) return error(400, 131009, `Parameter value is not valid: row id must be 1-${LIMITS.id} characters`);
        if (ids.has(row.id)) return error(400, 131009, "Parameter value is not valid: row ids must be unique");
        ids.add(row.id);
        if (typeof row.title !== "string" || !row.title || row.title.length > LIMITS.title) return error(400, 131009, `Parameter value is not valid: row title must be 1-${LIMITS.title} characters`);
        if (row.description !== undefined && (typeof row.description !== "string" || row.description.length > LIMITS.description)) {
          return error(400, 131009, `Parameter value is not valid: row description must be at most ${LIMITS.description} characters`);
        }
      }
      return { ...base, type: "interactive", text, button, rows: rows.map((r: any) => ({ id: r.id, title: r.title, ...(r.description ? { description: r.description } : {}) })) };
    }
    return error(400, 131009, `Parameter value is not valid: type ${String(type)}`);
  }

  async function handle(req: IncomingMessage, raw: string): Promise<{ status: number; body: unknown }> {
    const atMs = performance.now();
    const match = /^\/v[0-9.]+\/([^/]+)\/messages$/.exec(new URL(req.url ?? "/", "http://x").pathname);
    const record = (status: number, body: any, code?: number) => {
      calls.push({ path: req.url ?? "", body, status, ...(code !== undefined ? { code } : {}), atMs });
    };
    let body: any = {};
    try {
      body = raw ? JSON.parse(raw) : {};
    } catch {
      return error(400, 100, "(#100) the body is not JSON");
    }
    if (req.headers.authorization !== `Bearer ${options.accessToken}`) {
      record(401, body, 190);
      return error(401, 190, "Invalid OAuth access token - Cannot parse access token");
    }
    if (req.method !== "POST" || !match || decodeURIComponent(match[1]!) !== options.phoneNumberId) {
      record(404, body);
      return error(404, 100, "Unsupported post request.");
    }
    const failure = failures.find((f) => f.times > 0 && f.matches(body));
    if (failure) {
      failure.times--;
      record(failure.status, body, failure.code);
      return error(failure.status, failure.code, failure.message);
    }
    if (body.status === "read") {
      const m = personMessages.find((p) => p.id === body.message_id);
      if (!m) return error(400, 100, "(#100) Invalid parameter: message_id");
      m.read = true;
      record(200, body);
      return { status: 200, body: { success: true } };
    }
    if (body.type === "reaction") {
      const m = personMessages.find((p) => p.id === body.reaction?.message_id && p.from === String(body.to));
      if (!m) return error(400, 131009, "Parameter value is not valid: reaction.message_id");
      if (body.reaction.emoji) m.reactions.push(String(body.reaction.emoji));
      record(200, body);
      return { status: 200, body: { messaging_product: "whatsapp", contacts: [{ input: body.to, wa_id: body.to }], messages: [{ id: wamid() }] } };
    }
    const accepted = accept(body, atMs);
    if (!("id" in accepted)) {
      record(accepted.status, body, (accepted.body as any).error.code);
      return accepted;
    }
    record(200, body);
    const later = (accepted as { refusedLater?: RefusedLater }).refusedLater;
    if (later) {
      const status = { id: accepted.id, status: "failed", timestamp: String(Math.floor(Date.now() / 1000)), recipient_id: accepted.to, errors: [{ code: later.code, title: later.title }] };
      setTimeout(() => void post(statusBody(status)).catch(() => {}), later.afterMs ?? 30);
      return { status: 200, body: { messaging_product: "whatsapp", contacts: [{ input: accepted.to, wa_id: accepted.to }], messages: [{ id: accepted.id }] } };
    }
    botMessages.push(accepted);
    const hold = holds.find((h) => !h.arrived && h.matches(accepted));
    if (hold) {
      hold.arrived = true;
      hold.onArrive(accepted);
      await hold.wait;
    }
    return { status: 200, body: { messaging_product: "whatsapp", contacts: [{ input: accepted.to, wa_id: accepted.to }], messages: [{ id: accepted.id }] } };
  }

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      void handle(req, Buffer.concat(chunks).toString("utf8")).then(({ status, body }) => {
        res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;

  /** Meta's webhook body for one message from `from`. */
  function webhookBody(from: string, name: string, message: Record<string, unknown>) {
    return {
      object: "whatsapp_business_account",
      entry: [
        {
          id: "102290129340398",
          changes: [
            {
              field: "messages",
              value: {
                messaging_product: "whatsapp",
                metadata: { display_phone_number: options.displayNumber ?? "15550009999", phone_number_id: options.phoneNumberId },
                contacts: [{ profile: { name }, wa_id: from }],
                messages: [{ from, timestamp: String(Math.floor(Date.now() / 1000)), ...message }],
              },
            },
          ],
        },
      ],
    };
  }

  /** Meta's webhook body for one message status. */
  function statusBody(status: Record<string, unknown>) {
    return {
      object: "whatsapp_business_account",
      entry: [{ id: "102290129340398", changes: [{ field: "messages", value: { messaging_product: "whatsapp", metadata: { display_phone_number: options.displayNumber ?? "15550009999", phone_number_id: options.phoneNumberId }, statuses: [status] } }] }],
    };
  }

  /** Posts a body to the bot's webhook, signed with `secret` (default the app secret; null: no signature). */
  async function post(body: unknown, secret: string | null = options.appSecret): Promise<Response> {
    if (!webhookUrl) throw new Error("the fake does not know the bot's webhook URL");
    const raw = typeof body === "string" ? body : JSON.stringify(body);
    const headers: Record<string, string> = { "content-type": "application/json" };
    if (secret !== null) headers["x-hub-signature-256"] = `sha256=${createHmac("sha256", secret).update(raw).digest("hex")}`;
    return fetch(webhookUrl, { method: "POST", headers, body: raw });
  }

  async function deliver(from: string, name: string, message: Record<string, unknown>, fields: Partial<FakePersonMessage>): Promise<FakePersonMessage> {
    const id = wamid();
    const body = webhookBody(from, name, { id, ...message });
    const sent: FakePersonMessage = { id, from, reactions: [], read: false, body, ...fields };
    personMessages.push(sent);
    closedWindows.delete(from); // the person wrote: the 24-hour window opens
    asyncRefusals.delete(from);
    const res = await post(body);
    if (res.status !== 200) throw new Error(`the bot's webhook answered ${res.status}`);
    return sent;
  }

  return {
    apiRoot: `http://127.0.0.1:${port}`,
    port,
    calls,
    /** Every message the bot sent, in order. */
    botMessages: (to?: string) => (to === undefined ? botMessages : botMessages.filter((m) => m.to === to)),
    personMessages: () => personMessages,
    message: (id: string) => botMessages.find((m) => m.id === id),
    setWebhook(url: string) {
      webhookUrl = url;
    },
    post,
    webhookBody,
    /** The person types `text`, quoting `replyTo` (a message id) where given. */
    type: (from: string, name: string, text: string, replyTo?: string) =>
      deliver(from, name, { type: "text", text: { body: text }, ...(replyTo ? { context: { from: options.displayNumber ?? "15550009999", id: replyTo } } : {}) }, { text, ...(replyTo ? { replyTo } : {}) }),
    /** The person opens a list and picks a row (by index, or any row id for a forgery). */
    select(from: string, name: string, list: FakeBotMessage, row: number | { id: string; title?: string }) {
      const picked = typeof row === "number" ? list.rows[row] : { title: row.title ?? "Forged", ...row };
      if (!picked) throw new Error(`the list ${list.id} has no row ${String(row)}`);
      return deliver(
        from,
        name,
        { type: "interactive", interactive: { type: "list_reply", list_reply: { id: picked.id, title: picked.title } }, context: { from: options.displayNumber ?? "15550009999", id: list.id } },
        { rowId: picked.id, replyTo: list.id },
      );
    },
    /** Meta delivers the same webhook body again. */
    redeliver: async (sent: FakePersonMessage) => void (await post(sent.body)),
    /** From now on `to` has not written in 24 hours (false: they wrote). */
    closeWindow(to: string, closed = true, { refusedLater = false } = {}) {
      if (closed) closedWindows.add(to);
      else closedWindows.delete(to);
      if (closed && refusedLater) asyncRefusals.add(to);
      else asyncRefusals.delete(to);
    },
    windowClosed: (to: string) => closedWindows.has(to),
    /**
     * WhatsApp can never deliver to `to`: refused at once (131026), or with `later`, taken and then reported failed
     * in a status webhook `afterMs` later.
     */
    undeliverable(to: string, { later = false, afterMs = 30 } = {}) {
      undeliverable.add(to);
      if (later) undeliverableLater.set(to, afterMs);
      else undeliverableLater.delete(to);
    },
    /** The next `times` messages `matches` picks are refused with Meta's error `code`. */
    failNext(matches: (body: any) => boolean, code: number, { status = 400, times = 1, message = `fake error ${code}` } = {}) {
      failures.push({ matches, status, code, message, times });
    },
    /**
     * The next bot message `matches` picks (default: the next prompt, a list that quotes nothing) is recorded (people
     * see it) but its answer waits for `release()`.
     */
    holdNext(matches: (m: FakeBotMessage) => boolean = (m) => m.type === "interactive" && m.replyTo === undefined) {
      let release!: () => void;
      let onArrive!: (m: FakeBotMessage) => void;
      const arrived = new Promise<FakeBotMessage>((resolve) => (onArrive = resolve));
      const wait = new Promise<void>((resolve) => (release = resolve));
      const hold = { arrived: false, matches, release, wait, onArrive };
      holds.push(hold);
      return { arrived: () => hold.arrived, whenArrived: arrived, release };
    },
    async close() {
      for (const h of holds) h.release();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

export type FakeWhatsApp = Awaited<ReturnType<typeof startFakeWhatsApp>>;
