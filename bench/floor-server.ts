/**
 * The floor of benchmarks 1, 2 and 7: the unavoidable work of one question's life, with nothing of ours in it.
 * A raw `ws` relay between one agent and one surface connection doing the same four one-way messages per question
 * (agent → server → surface → server → agent), and on `/agent?db=1` also a raw insert of the question row and a
 * compare-and-set update to answered, on the store's own schema:
 * - SQLite (default): better-sqlite3 on the store's own file, pragmas and schema, each statement committing alone;
 * - PostgreSQL (with DATABASE_URL): `pg`, the store's driver, over ONE connection, as two named (prepared)
 *   statements, autocommit, on the store's own schema (its migration: indexes and NOTIFY triggers included).
 *
 * Run as a child process: `node --import tsx bench/floor-server.ts` with DATA_DIR (and optionally DATABASE_URL);
 * prints "floor listening on URL".
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { WebSocketServer, type WebSocket } from "ws";
import { openSqliteDatabase } from "../src/gateway/store/sqlite/sqlite-schema.ts";

/** The floor's two statements. SQLite's are synchronous (return nothing); PostgreSQL's return a promise. */
interface FloorStatements {
  insert(id: string, nowMs: number, questionsJson: string): void | Promise<void>;
  answer(id: string, nowMs: number, answersJson: string): void | Promise<void>;
  close(): void;
}

function sqliteStatements(dataDir: string): FloorStatements {
  // The store's own file, pragmas (WAL, synchronous = NORMAL, …) and schema, including its indexes.
  const db = openSqliteDatabase(dataDir);
  const insert = db.prepare(
    `INSERT INTO questions (id, status, created_at_ms, expires_at_ms, timeout_seconds, surfaces, questions_json, targets_json)
     VALUES (?, 'pending', ?, ?, 600, ',web,', ?, '[{"surface":"web"}]')`,
  );
  const answer = db.prepare(
    `UPDATE questions SET status = 'answered', resolved_at_ms = ?, answers_json = ? WHERE id = ? AND status = 'pending'`,
  );
  return {
    insert(id, now, questionsJson) {
      insert.run(id, now, now + 600_000, questionsJson);
    },
    answer(id, now, answersJson) {
      if (answer.run(now, answersJson, id).changes !== 1) throw new Error(`CAS failed for ${id}`);
    },
    close: () => db.close(),
  };
}

async function postgresStatements(databaseUrl: string): Promise<FloorStatements> {
  const { default: pg } = await import("pg");
  const { runPostgresMigrations } = await import("../src/gateway/store/postgres/postgres-schema.ts");
  await runPostgresMigrations(databaseUrl);
  const client = new pg.Client({ connectionString: databaseUrl, application_name: "aub-floor" });
  await client.connect();
  const insert = {
    name: "floor-insert",
    text: `INSERT INTO questions (id, status, created_at_ms, expires_at_ms, timeout_seconds, surfaces, questions_json, targets_json)
           VALUES ($1, 'pending', $2, $3, 600, '{web}', $4, '[{"surface":"web"}]')`,
  };
  const answer = {
    name: "floor-answer",
    text: `UPDATE questions SET status = 'answered', resolved_at_ms = $2, answers_json = $3 WHERE id = $1 AND status = 'pending'`,
  };
  return {
    async insert(id, now, questionsJson) {
      await client.query({ ...insert, values: [id, now, now + 600_000, questionsJson] });
    },
    async answer(id, now, answersJson) {
      const { rowCount } = await client.query({ ...answer, values: [id, now, answersJson] });
      if (rowCount !== 1) throw new Error(`CAS failed for ${id}`);
    },
    close: () => void client.end(),
  };
}

const dataDir = process.env.DATA_DIR;
if (!dataDir) throw new Error("DATA_DIR is required");
const db = process.env.DATABASE_URL ? await postgresStatements(process.env.DATABASE_URL) : sqliteStatements(dataDir);

/** One agent and one surface connection per room (`?room=`), so that several floors can share the server. */
const rooms = new Map<string, { agent?: WebSocket; surface?: WebSocket }>();
let nextId = 0;

const server = createServer((_req, res) => res.writeHead(404).end());
const wss = new WebSocketServer({ server });
wss.on("connection", (socket, req) => {
  const url = new URL(req.url ?? "/", "http://floor");
  const roomName = url.searchParams.get("room") ?? "";
  const room = rooms.get(roomName) ?? {};
  rooms.set(roomName, room);
  socket.on("close", () => rooms.delete(roomName));
  if (url.pathname === "/surface") {
    room.surface = socket;
    // surface → server: {"id","req","answers"}; compare-and-set, then relay the same bytes to the agent.
    socket.on("message", (raw: Buffer) => {
      const text = raw.toString();
      if (url.searchParams.get("db") === "1") {
        const frame = JSON.parse(text) as { id: string; answers: unknown };
        const written = db.answer(frame.id, Date.now(), JSON.stringify(frame.answers));
        if (written) return void written.then(() => room.agent?.send(text));
      }
      room.agent?.send(text);
    });
    return;
  }
  room.agent = socket;
  const withDb = url.searchParams.get("db") === "1";
  // agent → server: a request frame; insert the row, then relay it to the surface with the new id.
  socket.on("message", (raw: Buffer) => {
    const text = raw.toString();
    const id = `q${(nextId++).toString(16).padStart(20, "0")}`;
    if (withDb) {
      const frame = JSON.parse(text) as { params: { questions: unknown } };
      const written = db.insert(id, Date.now(), JSON.stringify(frame.params.questions));
      if (written) return void written.then(() => room.surface?.send(`{"id":"${id}","frame":${text}}`));
    }
    room.surface?.send(`{"id":"${id}","frame":${text}}`);
  });
});

server.listen(0, "127.0.0.1", () => {
  console.log(`floor listening on http://127.0.0.1:${(server.address() as AddressInfo).port}`);
});
const stop = () => {
  for (const client of wss.clients) client.terminate();
  server.close();
  db.close();
  process.exit(0);
};
process.once("SIGTERM", stop);
process.once("SIGINT", stop);
