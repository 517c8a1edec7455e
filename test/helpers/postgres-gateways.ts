import { afterAll, beforeAll } from "vitest";
import { connectGateway, type GatewayClient } from "../../src/client/index.ts";
import { cleanup, startTestGateway, TOKEN, type GatewayConfig, type TestGateway } from "./gateway.ts";
import { createTestDatabase, type TestDatabase } from "./postgres.ts";

/**
 * `count` gateway instances in this process on one fresh PostgreSQL database, for the file (started at once: the
 * migrations run under an advisory lock). `client(i)` connects to instance i; everything is closed after the file.
 */
export function useGatewaysOnPostgres(count: number, overrides: Partial<GatewayConfig> = {}) {
  let db: TestDatabase | undefined;
  let instances: TestGateway[] = [];
  const clients: GatewayClient[] = [];

  beforeAll(async () => {
    db = await createTestDatabase();
    const url = db.url;
    instances = await Promise.all(Array.from({ length: count }, () => startTestGateway({ DATABASE_URL: url, ...overrides })));
  }, 60_000);

  afterAll(async () => {
    for (const client of clients) client.close();
    await Promise.all(instances.map((gateway) => gateway.close()));
    await db?.drop();
    await cleanup();
  });

  return {
    instances: (): readonly TestGateway[] => instances,
    async client(instance: number): Promise<GatewayClient> {
      const connected = await connectGateway({ url: instances[instance]!.url, token: TOKEN });
      clients.push(connected);
      return connected;
    },
  };
}
