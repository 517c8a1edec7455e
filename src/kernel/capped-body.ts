/**
 * A request's body, read up to a cap: every HTTP listener here (the bots' webhooks, the web pages, the gateway's
 * HTTP mirror) reads its bodies through this one reader. Over the cap the rest is read and dropped (not kept), so
 * the request ends normally and the caller's 413 reaches the client.
 */
export function readCappedBody(req: NodeJS.ReadableStream, maxBytes: number): Promise<Buffer | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size <= maxBytes) chunks.push(chunk);
    });
    req.on("end", () => resolve(size > maxBytes ? undefined : Buffer.concat(chunks)));
    req.on("error", reject);
  });
}
