/**
 * The WebSocket protocol as bytes on a plain TCP socket, for tests that must control exactly what goes on the wire:
 * an upgrade request with any headers (and any source address), frame headers that announce a length without
 * sending the payload, and payloads streamed from one small buffer so that a 15 MiB frame costs the test nothing.
 * A client's frames must be masked (RFC 6455 §5.3); the mask key here is zero, so the payload goes as it is.
 */
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { connect, type Socket } from "node:net";

export interface Wire {
  socket: Socket;
  /** Everything the server sent after its 101 response (its frames, unparsed). */
  received(): Buffer;
  /** Resolves when the TCP connection ends, with how long after `openWire` resolved. */
  closed: Promise<{ afterMs: number }>;
  isClosed(): boolean;
  /** Resolves once the server's bytes contain `text` (frames are small and unmasked, so their JSON shows as is). */
  waitFor(text: string, timeoutMs?: number): Promise<void>;
}

export interface Upgrade {
  status: number;
  /** The response head and body as text (for refusals). */
  response: string;
  /** Set when the status is 101. */
  wire?: Wire;
}

/** Sends a `/ws` upgrade request by hand and resolves with the server's answer (and the open wire on a 101). */
export function openWire(wsUrl: string, { headers = {}, localAddress }: { headers?: Record<string, string>; localAddress?: string } = {}): Promise<Upgrade> {
  const url = new URL(wsUrl);
  return new Promise((resolve, reject) => {
    const socket = connect({ host: url.hostname, port: Number(url.port), ...(localAddress ? { localAddress } : {}) });
    let buffered = Buffer.alloc(0);
    let wire: Wire | undefined;
    let openedAt = 0;
    const chunks: Buffer[] = [];
    let watchers: Array<() => void> = [];
    let ended = false;
    const closed = new Promise<{ afterMs: number }>((resolveClosed) =>
      socket.once("close", () => {
        ended = true;
        for (const watch of watchers) watch();
        resolveClosed({ afterMs: Date.now() - openedAt });
      }),
    );
    socket.on("error", () => {}); // a reset by the gateway is an expected ending here; `closed` reports it
    socket.on("data", (chunk: Buffer) => {
      if (wire) {
        chunks.push(chunk);
        for (const watch of watchers) watch();
        return;
      }
      buffered = Buffer.concat([buffered, chunk]);
      const end = buffered.indexOf("\r\n\r\n");
      if (end < 0) return;
      const head = buffered.subarray(0, end).toString("latin1");
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1] ?? 0);
      if (status !== 101) return; // a refusal: wait for the whole body, until the server closes
      openedAt = Date.now();
      const rest = buffered.subarray(end + 4);
      if (rest.length > 0) chunks.push(rest);
      wire = {
        socket,
        received: () => Buffer.concat(chunks),
        closed,
        isClosed: () => ended,
        waitFor(text, timeoutMs = 5_000) {
          return new Promise<void>((resolveWait, rejectWait) => {
            const check = () => {
              if (Buffer.concat(chunks).includes(text)) finish(() => resolveWait());
              else if (ended) finish(() => rejectWait(new Error(`the connection closed before "${text}" arrived`)));
            };
            const timer = setTimeout(() => finish(() => rejectWait(new Error(`no "${text}" within ${timeoutMs} ms`))), timeoutMs);
            const finish = (fn: () => void) => {
              clearTimeout(timer);
              watchers = watchers.filter((w) => w !== check);
              fn();
            };
            watchers.push(check);
            check();
          });
        },
      };
      resolve({ status, response: head, wire });
    });
    socket.once("close", () => {
      if (!wire) {
        const text = buffered.toString("utf8");
        resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0), response: text });
      }
    });
    socket.once("connect", () => {
      const lines = [
        `GET ${url.pathname}${url.search} HTTP/1.1`,
        `Host: ${url.host}`,
        "Upgrade: websocket",
        "Connection: Upgrade",
        `Sec-WebSocket-Key: ${randomBytes(16).toString("base64")}`,
        "Sec-WebSocket-Version: 13",
        ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`),
      ];
      socket.write(`${lines.join("\r\n")}\r\n\r\n`);
    });
    socket.once("error", (error) => {
      if (!wire && !socket.readable) reject(error);
    });
  });
}

/** A masked frame header announcing `length` payload bytes (text unless `opcode` says otherwise), zero mask key. */
export function frameHeader(length: number, { opcode = 0x1, fin = true }: { opcode?: number; fin?: boolean } = {}): Buffer {
  const first = (fin ? 0x80 : 0) | opcode;
  const mask = Buffer.alloc(4); // zero: the payload is sent unchanged
  if (length < 126) return Buffer.concat([Buffer.from([first, 0x80 | length]), mask]);
  if (length < 65_536) {
    const head = Buffer.from([first, 0x80 | 126, 0, 0]);
    head.writeUInt16BE(length, 2);
    return Buffer.concat([head, mask]);
  }
  const head = Buffer.alloc(10);
  head[0] = first;
  head[1] = 0x80 | 127;
  head.writeBigUInt64BE(BigInt(length), 2);
  return Buffer.concat([head, mask]);
}

/** One whole masked frame. */
export function frame(payload: string | Buffer, options: { opcode?: number; fin?: boolean } = {}): Buffer {
  const body = typeof payload === "string" ? Buffer.from(payload) : payload;
  return Buffer.concat([frameHeader(body.length, options), body]);
}

const FILLER = Buffer.alloc(256 * 1024, "x");

/**
 * Writes `total` payload bytes as fast as the connection takes them (waiting for 'drain'), from one shared buffer.
 * Stops early when the connection closes; resolves with how many bytes the socket accepted.
 */
export async function pump(wire: Wire, total: number): Promise<number> {
  let sent = 0;
  while (sent < total && !wire.isClosed() && !wire.socket.destroyed) {
    const piece = FILLER.subarray(0, Math.min(FILLER.length, total - sent));
    sent += piece.length;
    if (!wire.socket.write(piece)) {
      await Promise.race([new Promise((resolve) => wire.socket.once("drain", resolve)), wire.closed]);
    }
  }
  return sent - wire.socket.writableLength;
}

/** Resident memory of a process (VmRSS from /proc), in KiB. */
export function vmRssKiB(pid: number): number {
  const match = /VmRSS:\s+(\d+)\s+kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  if (!match) throw new Error(`no VmRSS for ${pid}`);
  return Number(match[1]);
}

export const mib = (kib: number) => (kib / 1024).toFixed(1);
