import { runBotScenarios } from "../../scenarios/bot-scenarios.ts";
import { runDeliveryScenarios } from "../../scenarios/delivery-scenarios.ts";
import { runFollowUpScenarios } from "../../scenarios/follow-up-scenarios.ts";
import { mattermostDeliveryKit } from "./delivery-kit.ts";
import { createMattermostHarness } from "./harness.ts";

// A bot with the System Admin role: its notes to one person are ephemeral, and it deletes a credential.
runBotScenarios("mattermost", () => createMattermostHarness({ systemAdmin: true }));
runDeliveryScenarios("mattermost", mattermostDeliveryKit);
runFollowUpScenarios("mattermost", () => createMattermostHarness({ systemAdmin: true }), "smoke");
// A bot account with Mattermost's default role (no create_post_ephemeral, no delete_others_posts), as most are.
runBotScenarios("mattermost (default bot role)", () => createMattermostHarness());
