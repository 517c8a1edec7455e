import { MatrixClient, MatrixError } from "matrix-js-sdk";
import { BotStopError } from "../../src/kernel/errors.ts";
import { requireConfig, type Config } from "../../src/runtime/config.ts";
import { cutToFit } from "../../src/render/index.ts";
import { MATRIX_TEXT_MAX } from "../../src/platforms/matrix/platform.ts";
import { toMatrixText } from "../../src/platforms/matrix/escaping.ts";
import { createLog, startBridgeBot, type Log, type RunningBot } from "../shared.ts";
import { createMatrixAdapter } from "./adapter.ts";
import { createMatrixApi } from "./client.ts";
import { createMatrixInbound, type MatrixInbound } from "./inbound.ts";
import { createMatrixRooms } from "./rooms.ts";
import { ensureSyncToken, startSyncLoop, SYNC_TIMEOUT_MS } from "./sync-loop.ts";
import { createSyncTokenStore } from "./sync-token.ts";

export interface MatrixBotOptions {
  log?: Log;
  /** How long one /sync long-poll waits (default 30 s; tests use less). */
  syncTimeoutMs?: number;
}

/** matrix-js-sdk logs through loglevel; the bot says what matters itself. */
async function quietSdkLogger(): Promise<void> {
  const { logger } = await import("matrix-js-sdk/lib/logger.js");
  logger.setLevel?.("silent" as never);
}

/**
 * The Matrix bot: matrix-js-sdk's client for the client-server API (no crypto: encrypted rooms are refused), and its
 * own sync loop with a durable sync token in DATA_DIR (./sync-loop.ts, ./sync-token.ts).
 */
export async function startMatrixBot(config: Config, options: MatrixBotOptions = {}): Promise<RunningBot> {
  const { MATRIX_ACCESS_TOKEN } = requireConfig(config, ["MATRIX_ACCESS_TOKEN"]);
  // `start` runs this bot on the token alone: without the homeserver it can never start, so it says so once.
  const { MATRIX_HOMESERVER_URL } = config;
  if (!MATRIX_HOMESERVER_URL) throw new BotStopError("matrix: MATRIX_HOMESERVER_URL is required with MATRIX_ACCESS_TOKEN: the bot account's homeserver, e.g. https://matrix.example.org", true);
  const log = options.log ?? createLog("matrix");
  const baseUrl = MATRIX_HOMESERVER_URL.replace(/\/+$/, "");
  await quietSdkLogger().catch(() => {});
  const client = new MatrixClient({ baseUrl, accessToken: MATRIX_ACCESS_TOKEN });
  const api = createMatrixApi(client, log);
  let userId: string;
  try {
    ({ user_id: userId } = await api.whoami());
  } catch (error) {
    if (error instanceof MatrixError && (error.errcode === "M_UNKNOWN_TOKEN" || error.httpStatus === 401)) {
      throw new BotStopError("matrix: the access token was rejected (M_UNKNOWN_TOKEN): check MATRIX_ACCESS_TOKEN, or log the bot account in again for a new one", true);
    }
    throw error;
  }
  client.credentials.userId = userId;
  log(`connected to ${baseUrl} as ${userId}`);

  let fail: (error: BotStopError) => void = () => {};
  const failed = new Promise<BotStopError>((resolve) => (fail = resolve));
  const rooms = createMatrixRooms(api, userId);
  const tokens = createSyncTokenStore(config.DATA_DIR, baseUrl, userId);
  let inbound: MatrixInbound | undefined;

  const running = await startBridgeBot({
    config,
    log,
    allowedUsers: config.MATRIX_ALLOWED_USERS,
    otherOpens: "reply",
    adapter: createMatrixAdapter({ api, rooms, sent: (eventId) => inbound?.noteOwn(eventId) }),
    toPlatformText: (text) => cutToFit(text, MATRIX_TEXT_MAX, toMatrixText),
    listen: (bridge) => {
      inbound = createMatrixInbound(bridge, { api, rooms, botUserId: userId, allowedUsers: config.MATRIX_ALLOWED_USERS, log });
    },
    async start(deliver) {
      await rooms.load();
      await ensureSyncToken({ api, tokens, botUserId: userId, onBatch: (batch) => inbound!.onBatch(batch) });
      await deliver(); // the homeserver keeps events past the saved token: nothing is lost before the loop runs
      const loop = startSyncLoop({
        api,
        tokens,
        botUserId: userId,
        log,
        timeoutMs: options.syncTimeoutMs ?? SYNC_TIMEOUT_MS,
        onBatch: (batch) => inbound!.onBatch(batch),
        onStop: fail,
      });
      log(`syncing (token kept in ${tokens.file})`);
      return { stop: () => loop.stop() };
    },
  });
  return { ...running, failed };
}

/** The entry the CLI loads by platform name (`ask-user-bridge bot matrix`). */
export { startMatrixBot as startBot };
