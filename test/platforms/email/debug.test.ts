import { it } from "vitest";
import { rpcOk } from "../../helpers/gateway.ts";
import { createEmailHarness } from "./harness.ts";
import { waitUntil } from "../../scenarios/tools.ts";
it("debug", async () => {
  const h = await createEmailHarness();
  const { id } = await rpcOk(h.gatewayUrl(), "question.request", { questions: [{ id: "x", header: "H", question: "Q?", options: [{ label: "A" }, { label: "B" }] }], targets: [{ surface: "email", chat: h.chat }] });
  const m = await waitUntil(() => h.smtp.mails[0], "mail");
  console.log(m.raw.slice(0, 3000));
  const answer = await h.replyAs(h.person, "2", { replyTo: m });
  console.log("ANSWER", answer?.text, h.logs);
  await h.close();
}, 30000);
