/**
 * A fake Microsoft Teams for the real bot (the Microsoft 365 Agents SDK), on 127.0.0.1, with three parts:
 * - Entra, as far as the bot sees it: the tenant's signing keys (`/<tenant>/discovery/v2.0/keys`, what the SDK's JWT
 *   check fetches from TEAMS_AUTHORITY_URL) and a token endpoint, the Entra SDK sidecar's
 *   `/AuthorizationHeaderUnauthenticated/<service>` (TEAMS_TOKEN_SIDECAR_URL), which hands out the tokens the
 *   connector below accepts;
 * - the Bot Connector (the conversation's serviceUrl): `POST /v3/conversations/<id>/activities` (a new message),
 *   `POST …/activities/<id>` (a reply: in a channel, in that post's thread), `PUT …/activities/<id>` (updateActivity)
 *   and `DELETE …/activities/<id>` (the bot's own messages only, as in Teams);
 * - the channel: it posts activities to the bot's /api/messages with a Bot Framework JWT (or unsigned, or signed by
 *   another key, for the tests that must be refused), as Teams does: installs (conversationUpdate), typed messages
 *   with `<at>` mentions, and Action.Submit presses with the card's data.
 * The channel's token: Teams' own is issued by `https://api.botframework.com`, whose keys the SDK always fetches from
 * login.botframework.com, out of a test's reach; so the fake issues it as the Bot Framework's Entra tenant
 * (botframework.com, an issuer the SDK and the bot trust as the Bot Framework's), whose keys the SDK fetches from
 * TEAMS_AUTHORITY_URL, this fake. It names the `serviceurl` it was issued for, as the channel's does. A `tenant`
 * token is what anyone in the bot's tenant can get from Entra for the app: the tenant's issuer, no `serviceurl`.
 */
import { generateKeyPairSync, randomUUID, sign, type KeyObject } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export interface TeamsPerson {
  /** The Entra object id: what the bot calls the person (allowed users, personal targets). */
  id: string;
  name: string;
}

export type TeamsConversationType = "personal" | "groupChat" | "channel";

export interface FakeTeamsConversation {
  id: string;
  type: TeamsConversationType;
  /** A personal chat's person. */
  person?: string;
}

/** One message in a conversation, the bot's or a person's, as Teams now shows it. */
export interface FakeTeamsMessage {
  id: string;
  conversation: string;
  /** In a channel, the post whose thread it is in. */
  threadRoot?: string;
  /** The message it replies to (a quoted reply in a chat, a thread reply's post). */
  replyToId?: string;
  from: "bot" | string;
  text?: string;
  /** The Adaptive Card of a bot message (its first attachment). */
  card?: any;
  /** The card as first sent: what a client that has not caught up with an update still shows. */
  sentCard?: any;
  deleted: boolean;
  updates: number;
}

export interface FakeTeamsCall {
  method: string;
  path: string;
  body: any;
  status: number;
}

type Signing = "valid" | "none" | "forged" | "wrong-audience" | "expired";
/** Who issued a token: the Bot Framework (the channel), or the bot's tenant's Entra authority (v1 or v2 issuer). */
export type TokenIssuer = "bot-framework" | "tenant-v1" | "tenant-v2";
/** The botframework.com tenant: the Bot Framework's Entra tenant. */
export const BOT_FRAMEWORK_TENANT = "d6d49420-f39b-4df7-a1dc-d59a935871db";

export interface DeliverOptions {
  /** The token's `serviceurl` claim (default: the activity's serviceUrl; null: none, as a tenant's token has none). */
  serviceUrlClaim?: string | null;
  issuer?: TokenIssuer;
}

const htmlOf = (text: string) => text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
const b64url = (data: Buffer | string) => Buffer.from(data).toString("base64url");

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}

export interface FakeTeamsOptions {
  appId: string;
  tenantId: string;
  people: TeamsPerson[];
  conversations: FakeTeamsConversation[];
}

export async function startFakeTeams(options: FakeTeamsOptions) {
  const { appId, tenantId } = options;
  const key = generateKeyPairSync("rsa", { modulusLength: 2048 });
  const otherKey = generateKeyPairSync("rsa", { modulusLength: 2048 });
  const kid = `fake-${randomUUID().slice(0, 8)}`;
  const jwk = { ...(key.publicKey.export({ format: "jwk" }) as Record<string, string>), kid, use: "sig", alg: "RS256" };
  const issuedTokens = new Set<string>();
  const conversations = new Map(options.conversations.map((c) => [c.id, c]));
  const people = new Map(options.people.map((p) => [p.id, p]));
  const messages = new Map<string, FakeTeamsMessage>();
  const calls: FakeTeamsCall[] = [];
  const tokenRequests: string[] = [];
  let nextId = 1_700_000_000_000;
  const newId = () => String(++nextId);
  let allowDeletingOwn = true;
  const failures: Array<{ kind: "post" | "reply" | "update"; status: number; retryAfter?: number; conversation?: string }> = [];
  const holds: Array<{ kind: "post"; release: Promise<void>; arrived: () => void }> = [];
  let botUrl: string | undefined;
  /** The serviceUrl the channel puts in activities (a proxy in front of this fake, in the delivery kit). */
  let serviceUrl: string | undefined;

  const json = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
    res.writeHead(status, { "content-type": "application/json", ...headers }).end(JSON.stringify(body));
  };

  const server = createServer((req, res) => {
    void (async () => {
      const raw = await readBody(req);
      const url = new URL(req.url ?? "/", "http://x");
      const path = decodeURIComponent(url.pathname);
      let body: any;
      try {
        body = raw ? JSON.parse(raw) : undefined;
      } catch {
        body = raw;
      }
      const record = (status: number) => calls.push({ method: req.method ?? "", path, body, status });

      if (req.method === "GET" && path === `/${tenantId}/discovery/v2.0/keys`) return json(res, 200, { keys: [jwk] });
      if (req.method === "GET" && path === "/healthz") return json(res, 200, { status: "Healthy" });
      const sidecar = /^\/AuthorizationHeaderUnauthenticated\/([^/]+)$/.exec(path);
      if (req.method === "GET" && sidecar) {
        tokenRequests.push(url.searchParams.toString());
        const token = `fake-connector-token-${randomUUID()}`;
        issuedTokens.add(token);
        return json(res, 200, { authorizationHeader: `Bearer ${token}` });
      }

      const route = /^\/v3\/conversations\/([^/]+)\/activities(?:\/([^/]+))?$/.exec(path);
      if (!route) {
        record(404);
        return json(res, 404, { error: { code: "NotFound", message: `no route ${req.method} ${path}` } });
      }
      const bearer = /^Bearer (.+)$/.exec(req.headers.authorization ?? "")?.[1];
      if (!bearer || !issuedTokens.has(bearer)) {
        record(401);
        return json(res, 401, { message: "Authorization has been denied for this request." });
      }
      const [, conversationPath, activityId] = route;
      const threadOf = /;messageid=(.+)$/.exec(conversationPath!)?.[1];
      const conversationId = conversationPath!.replace(/;messageid=.+$/, "");
      const conversation = conversations.get(conversationId);
      if (!conversation) {
        record(403);
        return json(res, 403, { error: { code: "BotNotInConversationRoster", message: "The bot is not part of the conversation roster." } });
      }
      const kind = req.method === "POST" ? (activityId ? "reply" : "post") : req.method === "PUT" ? "update" : "delete";
      const failure = failures.findIndex((f) => f.kind === kind && (!f.conversation || f.conversation === conversationId));
      if (failure >= 0 && kind !== "delete") {
        const [f] = failures.splice(failure, 1);
        record(f!.status);
        return json(res, f!.status, { error: { code: f!.status === 429 ? "Throttled" : "ServiceError", message: "injected" } }, f!.retryAfter !== undefined ? { "retry-after": String(f!.retryAfter) } : {});
      }
      if (kind === "post" && body?.attachments?.length) {
        const hold = holds.shift();
        if (hold) {
          const id = newId();
          messages.set(id, toMessage(id, conversationId, body, undefined, undefined));
          hold.arrived();
          await hold.release;
          record(201);
          return json(res, 201, { id });
        }
      }
      if (kind === "post" || kind === "reply") {
        const id = newId();
        const root = kind === "reply" ? (conversation.type === "channel" ? (messages.get(activityId!)?.threadRoot ?? activityId) : undefined) : threadOf;
        messages.set(id, toMessage(id, conversationId, body, root, kind === "reply" ? activityId : undefined));
        record(201);
        return json(res, 201, { id });
      }
      const target = messages.get(activityId!);
      if (!target || target.conversation !== conversationId) {
        record(404);
        return json(res, 404, { error: { code: "NotFound", message: "activity not found" } });
      }
      if (kind === "update") {
        if (target.from !== "bot") {
          record(403);
          return json(res, 403, { error: { code: "Forbidden", message: "a bot may update only its own messages" } });
        }
        target.text = body?.text;
        target.card = body?.attachments?.[0]?.content;
        target.updates++;
        record(200);
        return json(res, 200, { id: target.id });
      }
      if (target.from !== "bot" || !allowDeletingOwn) {
        record(403);
        return json(res, 403, { error: { code: "Forbidden", message: "a bot may delete only its own messages" } });
      }
      target.deleted = true;
      record(200);
      return json(res, 200, {});
    })().catch((error) => {
      console.error("fake teams", error);
      if (!res.headersSent) res.writeHead(500);
      res.end();
    });
  });

  function toMessage(id: string, conversation: string, body: any, threadRoot: string | undefined, replyToId: string | undefined): FakeTeamsMessage {
    return {
      id,
      conversation,
      ...(threadRoot ? { threadRoot } : {}),
      ...(replyToId ? { replyToId } : {}),
      from: "bot",
      ...(typeof body?.text === "string" ? { text: body.text } : {}),
      ...(body?.attachments?.[0]?.content ? { card: body.attachments[0].content, sentCard: body.attachments[0].content } : {}),
      deleted: false,
      updates: 0,
    };
  }

  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const botAccount = { id: `28:${appId}`, name: "Ask Bot" };

  /** A token for the bot: the channel's (the Bot Framework's), or one from the bot's tenant. */
  function tokenFor(signing: Signing, serviceUrlClaim: string | null, issuer: TokenIssuer): string | undefined {
    if (signing === "none") return undefined;
    const now = Math.floor(Date.now() / 1000);
    const header = { alg: "RS256", typ: "JWT", kid };
    const claims =
      issuer === "bot-framework"
        ? { iss: `https://login.microsoftonline.com/${BOT_FRAMEWORK_TENANT}/v2.0`, tid: BOT_FRAMEWORK_TENANT }
        : // An app-only token of any app in the tenant, for the bot's app id: Entra puts no serviceurl in it.
          { iss: issuer === "tenant-v1" ? `https://sts.windows.net/${tenantId}/` : `${origin}/${tenantId}/v2.0`, tid: tenantId, appid: "0e0e0e0e-0000-4000-8000-0000000a7ac4", oid: randomUUID() };
    const payload = {
      ...claims,
      aud: signing === "wrong-audience" ? "00000000-0000-0000-0000-00000000beef" : appId,
      ...(serviceUrlClaim !== null ? { serviceurl: serviceUrlClaim } : {}),
      iat: now - 10,
      nbf: now - 10,
      exp: signing === "expired" ? now - 3600 : now + 3600,
    };
    const data = `${b64url(JSON.stringify(header))}.${b64url(JSON.stringify(payload))}`;
    const signer: KeyObject = signing === "forged" ? otherKey.privateKey : key.privateKey;
    return `${data}.${b64url(sign("RSA-SHA256", Buffer.from(data), signer))}`;
  }

  const personAccount = (person: TeamsPerson) => ({ id: `29:${person.id}`, name: person.name, aadObjectId: person.id });
  const conversationAccount = (conversation: FakeTeamsConversation, thread?: string) => ({
    id: thread ? `${conversation.id};messageid=${thread}` : conversation.id,
    conversationType: conversation.type,
    tenantId,
    isGroup: conversation.type !== "personal",
  });

  /** Posts an activity to the bot, signed as `signing` says; resolves to the HTTP status. */
  async function deliver(activity: Record<string, unknown>, signing: Signing = "valid", opts: DeliverOptions = {}): Promise<number> {
    if (!botUrl) throw new Error("the fake has no bot URL yet (useBot)");
    const issuer = opts.issuer ?? "bot-framework";
    const claim = opts.serviceUrlClaim !== undefined ? opts.serviceUrlClaim : issuer === "bot-framework" ? String(activity.serviceUrl) : null;
    const token = tokenFor(signing, claim, issuer);
    const res = await fetch(botUrl, {
      method: "POST",
      headers: { "content-type": "application/json", ...(token ? { authorization: `Bearer ${token}` } : {}) },
      body: JSON.stringify(activity),
    });
    await res.arrayBuffer();
    return res.status;
  }

  function baseActivity(conversation: FakeTeamsConversation, from: TeamsPerson, thread?: string) {
    return {
      id: newId(),
      channelId: "msteams",
      serviceUrl: serviceUrl ?? origin,
      timestamp: new Date().toISOString(),
      from: personAccount(from),
      recipient: botAccount,
      conversation: conversationAccount(conversation, thread),
      channelData: { tenant: { id: tenantId } },
    };
  }

  const conversationOf = (id: string) => {
    const c = conversations.get(id);
    if (!c) throw new Error(`the fake has no conversation ${id}`);
    return c;
  };
  const personOf = (id: string) => {
    const p = people.get(id);
    if (!p) throw new Error(`the fake has no person ${id}`);
    return p;
  };

  return {
    origin,
    appId,
    tenantId,
    /** TEAMS_AUTHORITY_URL and TEAMS_TOKEN_SIDECAR_URL. */
    authorityUrl: origin,
    sidecarUrl: origin,
    botAccount,
    calls,
    tokenRequests,
    messages,
    conversations,
    /** Where the channel posts activities (the bot's /api/messages). */
    useBot(url: string) {
      botUrl = url;
    },
    /** The serviceUrl activities carry (default: this fake). */
    useServiceUrl(url: string | undefined) {
      serviceUrl = url;
    },
    addConversation(conversation: FakeTeamsConversation) {
      conversations.set(conversation.id, conversation);
    },
    /** The personal chat's conversation id with a person. */
    personalOf(personId: string): string {
      const found = [...conversations.values()].find((c) => c.type === "personal" && c.person === personId);
      if (!found) throw new Error(`no personal chat with ${personId}`);
      return found.id;
    },
    /** The app is installed in a conversation (for a personal chat: by its person): Teams tells the bot. */
    install(conversationId: string, signing: Signing = "valid"): Promise<number> {
      const conversation = conversationOf(conversationId);
      const by = personOf(conversation.person ?? options.people[0]!.id);
      return deliver({ ...baseActivity(conversation, by), type: "conversationUpdate", membersAdded: [botAccount] }, signing);
    },
    /**
     * A person types a message: in a channel, in a post's thread when `threadRoot` is given (else a new post); in a
     * chat, a quoted reply when `replyToId` is given. `mention` @mentions the bot (`<at>Ask Bot</at>` and its entity).
     */
    async type(conversationId: string, personId: string, text: string, opts: { threadRoot?: string; replyToId?: string; mention?: boolean; signing?: Signing } = {}) {
      const conversation = conversationOf(conversationId);
      const person = personOf(personId);
      const thread = conversation.type === "channel" ? opts.threadRoot : undefined;
      const mentionText = `<at>${botAccount.name}</at>`;
      const activity = {
        ...baseActivity(conversation, person, thread),
        type: "message",
        textFormat: "plain",
        // Teams sends what a person typed as HTML: `<`, `>` and `&` arrive as entities.
        text: opts.mention ? `${mentionText} ${htmlOf(text)}` : htmlOf(text),
        ...(opts.mention ? { entities: [{ type: "mention", text: mentionText, mentioned: botAccount }] } : {}),
        ...(conversation.type !== "channel" && opts.replyToId ? { replyToId: opts.replyToId } : {}),
      };
      const message: FakeTeamsMessage = { id: activity.id, conversation: conversation.id, ...(thread ? { threadRoot: thread } : {}), from: person.id, text: activity.text, deleted: false, updates: 0 };
      messages.set(message.id, message);
      const send = () => deliver(activity, opts.signing);
      return { message, status: await send(), redeliver: send, activity };
    },
    /** A person presses an Action.Submit of a bot card: Teams posts a message whose `value` is the action's data. */
    submit(card: FakeTeamsMessage, personId: string, data: Record<string, unknown>, signing: Signing = "valid"): Promise<number> {
      const conversation = conversationOf(card.conversation);
      const person = personOf(personId);
      const thread = conversation.type === "channel" ? (card.threadRoot ?? card.id) : undefined;
      return deliver({ ...baseActivity(conversation, person, thread), type: "message", replyToId: card.id, value: data, channelData: { tenant: { id: tenantId }, postBack: true } }, signing);
    },
    /** Delivers any activity as the channel would (signed as `signing` says; issued as `opts` says). */
    deliver,
    /** An activity as Teams sends it from a person in a conversation (id, serviceUrl, from, recipient, conversation), with `fields`. */
    activityIn(conversationId: string, personId: string, fields: Record<string, unknown>): Record<string, unknown> {
      return { ...baseActivity(conversationOf(conversationId), personOf(personId)), ...fields };
    },
    /** The bot's messages in a conversation, oldest first. */
    botMessages(conversationId: string): FakeTeamsMessage[] {
      return [...messages.values()].filter((m) => m.conversation === conversationId && m.from === "bot");
    },
    message(id: string): FakeTeamsMessage {
      const found = messages.get(id);
      if (!found) throw new Error(`the fake has no message ${id}`);
      return found;
    },
    /** The next `kind` call (in `conversation`, or anywhere) is answered with `status` (and Retry-After). */
    failNext(kind: "post" | "reply" | "update", status: number, opts: { retryAfter?: number; conversation?: string } = {}) {
      failures.push({ kind, status, ...opts });
    },
    /** The next prompt post is stored (people see it) but answered only on release(). */
    holdNextPost() {
      let release!: () => void;
      let arrived = false;
      const hold = { kind: "post" as const, release: new Promise<void>((r) => (release = r)), arrived: () => void (arrived = true) };
      holds.push(hold);
      return { release: () => release(), arrived: () => arrived };
    },
    allowDeletingOwn(allow: boolean) {
      allowDeletingOwn = allow;
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export type FakeTeams = Awaited<ReturnType<typeof startFakeTeams>>;
