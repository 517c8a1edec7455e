import type { Bridge } from "../../src/bridge/index.ts";
import { BotStopError } from "../../src/kernel/errors.ts";
import { requireConfig, type Config } from "../../src/runtime/config.ts";
import { cutToFit } from "../../src/render/index.ts";
import { MATTERMOST_MESSAGE_MAX } from "../../src/platforms/mattermost/platform.ts";
import { toMattermostText } from "../../src/platforms/mattermost/escaping.ts";
import { createLog, startBridgeBot, type Log, type RunningBot } from "../shared.ts";
import { startListener } from "../kit/listener.ts";
import { createMattermostAdapter, createMattermostConversations } from "./adapter.ts";
import { createEventsSocket, MattermostClient, mattermostStatus, type EventsSocket } from "./client.ts";
import { createMattermostInbound } from "./inbound.ts";
import { createSigner, deriveActionKey } from "./signing.ts";

/** How long a start waits for the WebSocket before it delivers anyway. */
const FIRST_CONNECT_WAIT_MS = 10_000;

export interface MattermostBotOptions {
  log?: Log;
  /** The WebSocket's first reconnect wait (default 3 s; tests use short ones). */
  reconnectMs?: number;
}

export interface RunningMattermostBot extends RunningBot {
  /** The actions listener's bound port (MATTERMOST_ACTIONS_PORT, or the one picked for 0). */
  port: number;
  /** The base URL the prompts' actions call. */
  actionsUrl: string;
}

/**
 * The Mattermost bot: Client4 for the REST API, the WebSocket for typed messages, and an HTTP listener on
 * MATTERMOST_ACTIONS_HOST:MATTERMOST_ACTIONS_PORT for button presses and dialog submissions.
 */
export async function startMattermostBot(config: Config, options: MattermostBotOptions = {}): Promise<RunningMattermostBot> {
  const required = requireConfig(config, ["MATTERMOST_URL", "MATTERMOST_BOT_TOKEN"]);
  const log = options.log ?? createLog("mattermost");
  const token = required.MATTERMOST_BOT_TOKEN;
  const client = new MattermostClient(required.MATTERMOST_URL, token);
  // GET /users/me: a bad token fails here, by name, and ends the bot (exit 78): restarting cannot fix it.
  const me = (await client.getMe().catch((error: unknown) => {
    const status = mattermostStatus(error);
    if (status === 401 || status === 403) throw new BotStopError(`mattermost: the token was rejected (${status}): check MATTERMOST_BOT_TOKEN`, true, { cause: error });
    throw error;
  })) as { id: string; username: string };
  const signer = createSigner(deriveActionKey(token));
  const host = config.MATTERMOST_ACTIONS_HOST ?? config.GATEWAY_HOST;
  let actionsUrl = config.MATTERMOST_ACTIONS_URL?.replace(/\/+$/u, "");
  const baseUrl = () => actionsUrl ?? "";
  const conversations = createMattermostConversations(client, me.id);
  const adapter = createMattermostAdapter(client, conversations, signer, { baseUrl }, log);
  let bridge: Pick<Bridge, "handle" | "sent"> | undefined;

  return startBridgeBot({
    config,
    log,
    allowedUsers: config.MATTERMOST_ALLOWED_USERS,
    otherOpens: "modal",
    adapter,
    toPlatformText: (text) => cutToFit(text, MATTERMOST_MESSAGE_MAX, toMattermostText),
    listen: (b) => void (bridge = b),
    async start(deliver) {
      const inbound = createMattermostInbound(client, me.id, bridge!, { conversations, adapter, signer, baseUrl }, log);
      const listener = await startListener({ host, port: config.MATTERMOST_ACTIONS_PORT, portVariable: "MATTERMOST_ACTIONS_PORT", handle: inbound.handle });
      const { port } = listener;
      actionsUrl ??= `http://${host.includes(":") ? `[${host}]` : host}:${port}`;
      log(`button presses: POST ${actionsUrl}/mattermost/actions (listening on ${host}:${port})`);
      let events: EventsSocket | undefined;
      try {
        events = createEventsSocket(client, token, log, options.reconnectMs !== undefined ? { retryMs: options.reconnectMs } : {});
        const { socket } = events;
        inbound.attach(socket);
        let connected = false;
        const firstConnect = new Promise<void>((resolve) => {
          socket.addFirstConnectListener(() => {
            connected = true;
            log(`connected to Mattermost as @${me.username}`);
            resolve();
          });
        });
        socket.addReconnectListener(() => log("reconnected to the Mattermost WebSocket"));
        // Also what makes the client keep its connection id, so that a reconnect resumes and gets what it missed;
        // this runs when the server could not resume it (it restarted, or too much happened meanwhile).
        socket.addMissedMessageListener(() => log("the Mattermost WebSocket could not resume: messages typed while it was down were not seen"));
        socket.addCloseListener((fails) => connected && fails === 1 && log("lost the Mattermost WebSocket; reconnecting"));
        // Typed replies come over the socket: wait for it a little (it keeps retrying on its own if this runs out).
        const waited = await Promise.race([firstConnect.then(() => true), new Promise<boolean>((resolve) => setTimeout(() => resolve(false), FIRST_CONNECT_WAIT_MS).unref())]);
        if (!waited) log(`the Mattermost WebSocket is not connected after ${FIRST_CONNECT_WAIT_MS / 1000} s; still trying`);
        await deliver();
      } catch (error) {
        events?.close();
        await listener.close();
        throw error;
      }
      return {
        port,
        actionsUrl,
        async stop() {
          events?.close();
          await listener.close();
        },
      };
    },
  });
}

/** The entry the CLI loads by platform name (`ask-user-bridge bot mattermost`). */
export { startMattermostBot as startBot };
