/** The addresses that bind every interface: a client cannot connect to them, nor a browser open a link at them. */
const WILDCARD_HOSTS: ReadonlySet<string> = new Set(["0.0.0.0", "::", ""]);

export function isWildcardHost(host: string): boolean {
  return WILDCARD_HOSTS.has(host);
}

/** This machine's URL of a gateway bound to `host`:`port`: its own address, or the loopback for a wildcard bind. */
export function localGatewayUrl(host: string, port: number): string {
  const reachable = isWildcardHost(host) ? "127.0.0.1" : host;
  return `http://${reachable.includes(":") ? `[${reachable}]` : reachable}:${port}`;
}
