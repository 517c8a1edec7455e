/**
 * The address a request comes from, as the token backoff counts it (auth/auth-backoff.ts).
 *
 * Without trusted proxies it is the socket's peer. Behind a reverse proxy (deploy/nginx.conf, deploy/Caddyfile) the
 * peer is the proxy, for every client alike; GATEWAY_TRUSTED_PROXIES names the proxies (addresses or CIDR ranges)
 * whose `X-Forwarded-For` is believed. Only when the peer is one of them is the header read, from the right: each
 * proxy appends the address it got the request from, so the right-most entry that is not itself a trusted proxy is
 * the client. Entries left of it were written by the client and could say anything; they are never used. A header
 * from any other peer is ignored, so a client cannot pick the address it is counted under.
 */
import type { IncomingMessage } from "node:http";
import { createAddressMatcher, plainAddress } from "../../kernel/address-ranges.ts";

export type ClientAddress = (req: IncomingMessage) => string | undefined;

/** The socket's peer: the client, when no proxy stands between. */
export const socketAddress: ClientAddress = (req) => req.socket.remoteAddress;

/** The client's address by X-Forwarded-For from these proxies (see above), else the socket's peer. */
export function createClientAddress(trustedProxies: readonly string[] = []): ClientAddress {
  if (trustedProxies.length === 0) return socketAddress;
  const trusted = createAddressMatcher(trustedProxies);
  return (req) => {
    const peer = req.socket.remoteAddress;
    if (!trusted(peer)) return peer;
    const header = req.headers["x-forwarded-for"];
    const hops = (Array.isArray(header) ? header.join(",") : (header ?? "")).split(",");
    let client = peer;
    for (let i = hops.length - 1; i >= 0; i--) {
      const hop = plainAddress(hops[i]);
      // Not an address: whoever wrote it is not a proxy we trust; the last address a trusted proxy vouched for stands.
      if (hop === undefined) break;
      client = hop;
      if (!trusted(hop)) break;
    }
    return client;
  };
}
