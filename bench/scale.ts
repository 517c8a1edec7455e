/**
 * Benchmark 3: scale at rest. 10,000 and then 100,000 pending questions (each targeted at one of N/100 Telegram
 * chats, delivered there, expiring in about an hour: what a busy deployment holds). For each size, the real
 * gateway (a child process, SQLite) is started on that DATA_DIR several times, and we measure:
 * - restart to serving: spawn → the first question.list answered over HTTP (process start, store open,
 *   start-up expiry and delivery re-arming, listen), next to the same for a small reference store (1,000);
 *   and, in this process, the start-up work that depends on the store (open, service.start, first list);
 * - gateway RSS (VmRSS of the child) after serving, and RSS per pending question over the reference's;
 * - the latency of question.list filtered to one chat (100 pending questions each) over WebSocket.
 */
import type { QuestionRecord } from "../src/record/record.ts";
import { createQuestionService } from "../src/gateway/service/service.ts";
import { createSqliteStore } from "../src/gateway/store/index.ts";
import { openSqliteDatabase } from "../src/gateway/store/sqlite/sqlite-schema.ts";
import { deliveryToParams, recordToParams } from "../src/gateway/store/kit/sql-row.ts";
import { QUESTION, rpcClient } from "./lib/drivers.ts";
import { BENCH_TOKEN, rssBytes, spawnGateway, tempDir } from "./lib/procs.ts";
import { rotate, type BenchResult } from "./lib/result.ts";
import { fmtBytes, fmtInt, fmtMs, fmtRatio, fmtUs, latency, median, nowUs } from "./lib/stats.ts";

export interface ScaleOptions {
  sizes?: number[];
  /** Questions per chat (the chats are size / perChat). */
  perChat?: number;
  restarts?: number;
  listQueries?: number;
  /** The small store the larger ones are compared with. */
  reference?: number;
  log?: (line: string) => void;
}


/**
 * Writes `size` pending, delivered questions: the rows the store writes for them (recordToParams, the chat index,
 * the delivery), in one transaction, which is much faster than one store.create each.
 */
export function populate(dataDir: string, size: number, perChat: number): number {
  const t0 = nowUs();
  const db = openSqliteDatabase(dataDir);
  const columns = Object.keys(recordToParams(sampleRecord(0, size, perChat, Date.now())));
  const insert = db.prepare(`INSERT INTO questions (${columns.join(", ")}) VALUES (${columns.map((c) => `@${c}`).join(", ")})`);
  const insertTarget = db.prepare(`INSERT INTO question_targets (chat, surface, question_id) VALUES (?, ?, ?)`);
  const insertDelivery = db.prepare(
    `INSERT INTO deliveries (question_id, surface, chat, message_ref, delivered_at_ms) VALUES (@question_id, @surface, @chat, @message_ref, @delivered_at_ms)`,
  );
  const now = Date.now();
  db.transaction(() => {
    for (let i = 0; i < size; i++) {
      const record = sampleRecord(i, size, perChat, now);
      insert.run(recordToParams(record));
      for (const t of record.targets) insertTarget.run(t.chat!, t.surface, record.id);
      for (const d of record.deliveries) insertDelivery.run(deliveryToParams(record.id, d));
    }
  }).immediate();
  db.close();
  return (nowUs() - t0) / 1000;
}

function sampleRecord(i: number, size: number, perChat: number, now: number): QuestionRecord {
  const chat = String(1_000_000 + Math.floor(i / perChat));
  const createdAtMs = now - 600_000 + Math.floor((i / Math.max(size, 1)) * 590_000);
  return {
    id: `q${i.toString(16).padStart(20, "0")}`,
    questions: [{ ...QUESTION, multiSelect: false }],
    timeoutSeconds: 3600,
    status: "pending",
    createdAtMs,
    expiresAtMs: createdAtMs + 3_600_000,
    targets: [{ surface: "telegram", chat }],
    deliveries: [{ surface: "telegram", chat, messageRef: String(10_000 + i), deliveredAtMs: createdAtMs + 40 }],
    reminders: [],
  };
}

async function firstList(url: string): Promise<void> {
  const res = await fetch(`${url}/rpc/question.list`, {
    method: "POST",
    headers: { authorization: `Bearer ${BENCH_TOKEN}`, "content-type": "application/json" },
    body: JSON.stringify({ status: "pending", limit: 1 }),
  });
  if (!res.ok) throw new Error(`question.list answered ${res.status}`);
  await res.arrayBuffer();
}

/** A signed difference: "+12 ms", "−3 ms". */
const plus = (fmt: (n: number) => string, n: number): string => (n < 0 ? fmt(n) : `+${fmt(n)}`);

/** The most SQLite's page cache holds for one connection with the store's settings. */
function pageCacheBytes(dataDir: string): number {
  const db = openSqliteDatabase(dataDir);
  const size = db.pragma("cache_size", { simple: true }) as number;
  const page = db.pragma("page_size", { simple: true }) as number;
  db.close();
  return size < 0 ? -size * 1024 : size * page;
}

/** One restart: spawn → first answer; then (optionally) list latency and RSS while it serves. */
async function restartOnce(dataDir: string, size: number, perChat: number, listQueries: number) {
  const t0 = nowUs();
  const gateway = await spawnGateway({ dataDir, store: "sqlite" });
  await firstList(gateway.url);
  const restartMs = (nowUs() - t0) / 1000;
  const client = await rpcClient(gateway.url);
  const chats = Math.max(1, Math.ceil(size / perChat));
  const samples: number[] = [];
  let listed = 0;
  for (let i = 0; i < listQueries; i++) {
    const chat = String(1_000_000 + ((i * 7919) % chats));
    const t = nowUs();
    const { questions } = await client.call("question.list", { status: "pending", surface: "telegram", chat });
    samples.push(nowUs() - t);
    listed = questions.length;
  }
  await new Promise((resolve) => setTimeout(resolve, 200));
  const rss = rssBytes(gateway.pid);
  client.close();
  await gateway.stop();
  return { restartMs, rss, samples, listed };
}

/**
 * The start-up work that depends on the store, in this process: open the store, start the service, first list.
 * Both are awaited: since the store became asynchronous, start() returns a promise.
 */
async function startupWorkMs(dataDir: string): Promise<number> {
  const t0 = nowUs();
  const store = createSqliteStore({ dataDir });
  const service = createQuestionService({ store });
  await service.start();
  await service.list({ status: "pending", limit: 1 });
  const ms = (nowUs() - t0) / 1000;
  service.stop();
  await store.close();
  return ms;
}

interface Measured {
  size: number;
  populateMs: number;
  restartMs: number[];
  rss: number[];
  list: number[];
  listed: number;
  startupMs: number[];
}

export async function benchScale(options: ScaleOptions = {}): Promise<BenchResult> {
  const sizes = options.sizes ?? [10_000, 100_000];
  const perChat = options.perChat ?? 100;
  const restarts = options.restarts ?? 4;
  const listQueries = options.listQueries ?? 300;
  const reference = options.reference ?? 1_000;
  const log = options.log ?? (() => {});

  // The reference: a small store answering the same queries (100 records per chat), so that what is left over at
  // the larger sizes is what the extra pending questions cost. Restarts go round the sizes in turn, so that the
  // machine's noise falls on each size alike.
  const all: Array<Measured & { dataDir: string }> = [reference, ...sizes].map((size) => {
    const dataDir = tempDir();
    return { size, dataDir, populateMs: populate(dataDir, size, perChat), restartMs: [], rss: [], list: [], listed: 0, startupMs: [] };
  });
  for (let round = 0; round < restarts; round++) {
    for (const m of rotate(all, round)) {
      const r = await restartOnce(m.dataDir, m.size, perChat, Math.ceil(listQueries / restarts));
      m.restartMs.push(r.restartMs);
      m.rss.push(r.rss);
      m.list.push(...r.samples);
      m.listed = r.listed;
      m.startupMs.push(await startupWorkMs(m.dataDir));
    }
    log(`  round ${round + 1}/${restarts}: ${all.map((m) => `${fmtInt(m.size)} restart ${fmtMs(m.restartMs.at(-1)!)}, RSS ${fmtBytes(m.rss.at(-1)!)}`).join("; ")}`);
  }

  const fig = all.map((m) => ({
    size: m.size,
    populateMs: m.populateMs,
    restartMs: median(m.restartMs),
    rssBytes: median(m.rss),
    listUs: latency(m.list),
    listedPerQuery: m.listed,
    startupMs: median(m.startupMs),
  }));
  const base = fig[0]!;
  const figures = fig.slice(1);
  const perQuestion = (f: (typeof fig)[number]) => Math.max(0, f.rssBytes - base.rssBytes) / (f.size - reference);
  const restartExtra = (f: (typeof fig)[number]) => f.restartMs - base.restartMs;
  const startupExtra = (f: (typeof fig)[number]) => f.startupMs - base.startupMs;
  const largest = figures.at(-1)!;
  const smallest = figures[0]!;
  const growth = (largest.size - reference) / (smallest.size - reference);
  // Linear: the store-dependent start-up work and the extra RSS grow no faster than the count (with 20 ms / 2 MiB
  // of slack for noise), and listing one chat's 100 questions costs about the same at any size. SQLite's page cache
  // (a fixed size per connection, 16 MB with better-sqlite3's build) fills as pages are read, whatever the count:
  // that much of the extra RSS is a constant, not a cost per question.
  const pageCache = pageCacheBytes(all[0]!.dataDir);
  const linear =
    startupExtra(largest) <= growth * Math.max(startupExtra(smallest), 0) * 1.5 + 20 &&
    largest.rssBytes - base.rssBytes <= growth * Math.max(smallest.rssBytes - base.rssBytes, 0) * 1.5 + pageCache + 2 * 1024 * 1024 &&
    largest.listUs.median <= smallest.listUs.median * 1.5 + 200;
  const met = figures.every((f) => perQuestion(f) < 2048) && largest.restartMs <= 2000 && linear;
  return {
    name: "3. Scale at rest (SQLite)",
    result: figures
      .map((f) => `${fmtInt(f.size)}: ${fmtBytes(perQuestion(f))} RSS/q, restart ${fmtMs(f.restartMs)}, list 1 chat ${fmtUs(f.listUs.median)}`)
      .join("; "),
    ratio:
      `${fmtInt(largest.size)} vs ${fmtInt(smallest.size)}: list ${fmtRatio(largest.listUs.median / smallest.listUs.median)}; ` +
      `start-up work ${plus(fmtMs, startupExtra(largest))} vs ${plus(fmtMs, startupExtra(smallest))}; ` +
      `RSS ${plus(fmtBytes, largest.rssBytes - base.rssBytes)} vs ${plus(fmtBytes, smallest.rssBytes - base.rssBytes)} (over ${fmtInt(reference)})`,
    goal: "< 2 KiB RSS/q; restart ≤ 2 s at 100k; linear",
    met,
    notes: [
      `restart to serving = spawn of \`ask-user-bridge gateway\` → first question.list answered over HTTP (node + tsx start-up, module load, store open, ` +
        `start-up expiry and delivery re-arming, listen); median of ${restarts} restarts per size, sizes taken in turn`,
      `reference store (${fmtInt(reference)} pending in ${fmtInt(reference / perChat)} chats): restart ${fmtMs(base.restartMs)}, RSS ${fmtBytes(base.rssBytes)}, ` +
        `store-dependent start-up work ${fmtMs(base.startupMs)} (store open + service.start + first list, in-process)`,
      ...figures.map(
        (f) =>
          `${fmtInt(f.size)} pending in ${fmtInt(f.size / perChat)} chats (written in ${fmtMs(f.populateMs)}): restart ${fmtMs(f.restartMs)}; ` +
          `start-up work ${fmtMs(f.startupMs)} (${plus(fmtMs, startupExtra(f))} over the reference); ` +
          `RSS ${fmtBytes(f.rssBytes)} (${plus(fmtBytes, f.rssBytes - base.rssBytes)}, ${fmtBytes(perQuestion(f))} per extra pending question); ` +
          `question.list {status, surface, chat} ${fmtUs(f.listUs.median)} median, ${fmtUs(f.listUs.p99)} p99 for ${f.listedPerQuery} records`,
      ),
      `growth is linear or better: ${linear ? "yes" : "no"} (the extra RSS includes SQLite's page cache, which fills up to ${fmtBytes(pageCache)} as pages are read, at any size)`,
    ],
    data: { reference: base, figures, restartExtra: figures.map(restartExtra), pageCacheBytes: pageCache },
  };
}
