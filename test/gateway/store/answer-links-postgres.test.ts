/** Answer links on two gateway instances sharing one PostgreSQL database: one key, so each opens the other's links. */
import { describe, expect, it } from "vitest";
import { useGatewaysOnPostgres } from "../../helpers/postgres-gateways.ts";
import { oneQuestion, RawWs, rpcOk } from "../../helpers/gateway.ts";

const shared = useGatewaysOnPostgres(2);

describe("answer links on two instances of one PostgreSQL database", () => {
  it("a link made by A opens and answers on B, and A's waiter gets the answer", async () => {
    const [a, b] = shared.instances();
    const asked = await rpcOk(a!.url, "question.request", oneQuestion({ targets: [{ surface: "slack", chat: "C9", users: ["U1"] }], links: true }));
    const token = new URL(asked.links[0].url).pathname;
    // B lists the same link (at its own address: no GATEWAY_PUBLIC_URL here).
    const onB = await rpcOk(b!.url, "question.get", { id: asked.id });
    expect(new URL(onB.links[0].url).pathname).toBe(token);
    const waiting = rpcOk(a!.url, "question.waitAnswer", { id: asked.id, timeoutMs: 20_000 });
    const page = await fetch(`${b!.url}${token}`);
    expect(page.status).toBe(200);
    const html = await page.text();
    const csrf = /name="csrf" value="([^"]+)"/.exec(html)![1]!;
    const cookie = page.headers.get("set-cookie")!.split(";")[0]!;
    const res = await fetch(`${b!.url}${token}`, {
      method: "POST",
      redirect: "manual",
      headers: { "content-type": "application/x-www-form-urlencoded", cookie, "sec-fetch-site": "same-origin" },
      body: new URLSearchParams({ "a:deploy_target": "1", action: "answer", csrf }),
    });
    expect(res.status).toBe(303);
    expect(await waiting).toMatchObject({ status: "answered", answers: { answers: { deploy_target: ["Production"] } }, answeredBy: { surface: "slack", user: "U1" } });
    // A shows the ended page for the same link.
    expect(await (await fetch(`${a!.url}${token}`)).text()).toContain("Answered in Slack by U1");
  });

  it("an event heard on B about A's question carries its links (the notification's record gets them too)", async () => {
    const [a, b] = shared.instances();
    const listener = await RawWs.connect(b!.wsUrl);
    try {
      const asked = await rpcOk(a!.url, "question.request", oneQuestion({ targets: [{ surface: "slack", chat: "C7" }], links: true }));
      const heard = await listener.waitFor(() => listener.events.find((e) => e.event === "question.requested" && e.payload.id === asked.id), 20_000, "B's requested event");
      expect(heard.payload.links.map((l: { target: string; url: string }) => [l.target, new URL(l.url).pathname])).toEqual([["slack:C7", new URL(asked.links[0].url).pathname]]);
    } finally {
      listener.close();
    }
  });
});
