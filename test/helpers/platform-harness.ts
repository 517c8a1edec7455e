/**
 * The lifecycle every platform's harness and delivery kit share: a real gateway in this process, the platform's bot
 * connected to it, and what the bot talks to (its fake, a proxy in front of it). Either side restarts: the gateway
 * comes back on the same port with the same DATA_DIR, so the bot's GATEWAY_URL stays right; close stops the bot, then
 * the gateway, then each of the rest in order. Each harness adds only its platform's specifics.
 */
import type { Clock } from "../../src/kernel/clock.ts";
import { freePort, sleep, startTestGateway, type GatewayConfig, type TestGateway } from "./gateway.ts";
import { tempDir } from "./temp-dirs.ts";

export interface Stoppable {
  stop(): Promise<void>;
}

export interface Closable {
  close(): Promise<void>;
}

/** The gateway of a harness, before its bot starts: where the bot finds it, and the DATA_DIR they share. */
export interface HarnessGateway {
  url: string;
  dataDir: string;
  port: number;
  /** The running gateway (undefined while stopped). */
  current(): TestGateway | undefined;
  start(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * Starts the gateway on a port of its own, with DATA_DIR a new `tempDir(dataDirPrefix)`; `settings` adds to its
 * configuration (it gets the port, for a GATEWAY_PUBLIC_URL at the gateway's own address); `clock`, a virtual clock
 * for its timers (default: real time).
 */
export async function startHarnessGateway(dataDirPrefix = "aub-gw-", settings: (port: number) => Partial<GatewayConfig> = () => ({}), clock?: Clock): Promise<HarnessGateway> {
  const dataDir = tempDir(dataDirPrefix);
  const port = await freePort();
  const launch = () => startTestGateway({ dataDir, GATEWAY_PORT: port, DELIVERY_TIMEOUT_SECONDS: 30, ...settings(port) }, clock);
  let gateway: TestGateway | undefined = await launch();
  return {
    url: gateway.url,
    dataDir,
    port,
    current: () => gateway,
    async start() {
      if (gateway) return;
      gateway = await launch();
      await sleep(100); // let fetch's pool notice the old server's sockets are gone
    },
    async stop() {
      await gateway?.close();
      gateway = undefined;
    },
  };
}

/** What a harness or a kit spreads into itself: the gateway's URL, and the bot's and the gateway's lifecycle. */
export interface PlatformLifecycle<Bot extends Stoppable> {
  gatewayUrl(): string;
  /** The running bot (throws while it is stopped). */
  bot(): Bot;
  stopBot(): Promise<void>;
  startBot(): Promise<void>;
  /** Stops the bot, runs `whileDown`, and starts it again. */
  restartBot(whileDown?: () => Promise<unknown>): Promise<void>;
  stopGateway(): Promise<void>;
  startGateway(): Promise<void>;
  restartGateway(): Promise<void>;
  close(): Promise<void>;
}

/**
 * Starts the bot with `startBot` against `gateway`, and returns the lifecycle of both; `closing` (the fake, a proxy)
 * is closed after them, in order.
 */
export async function startPlatformLifecycle<Bot extends Stoppable>(gateway: HarnessGateway, startBot: () => Promise<Bot>, closing: Closable[] = []): Promise<PlatformLifecycle<Bot>> {
  let bot: Bot | undefined = await startBot();
  const lifecycle: PlatformLifecycle<Bot> = {
    gatewayUrl: () => gateway.url,
    bot() {
      if (!bot) throw new Error("the bot is stopped");
      return bot;
    },
    async stopBot() {
      await bot?.stop();
      bot = undefined;
    },
    async startBot() {
      bot ??= await startBot();
    },
    async restartBot(whileDown) {
      await lifecycle.stopBot();
      await whileDown?.();
      await lifecycle.startBot();
    },
    stopGateway: () => gateway.stop(),
    startGateway: () => gateway.start(),
    async restartGateway() {
      await gateway.stop();
      await gateway.start();
    },
    async close() {
      await lifecycle.stopBot();
      await gateway.stop();
      for (const other of closing) await other.close();
    },
  };
  return lifecycle;
}
