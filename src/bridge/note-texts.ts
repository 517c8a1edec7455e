/** Every message the bridge says, in one place. */
export const TEXTS = {
  submitted: "Answer submitted.",
  skipped: "Skipped.",
  alreadyAnswered: "This question was already answered.",
  someoneElse: "This question is for someone else.",
  notValid: "This button is no longer valid.",
  notSubmitted: "Not submitted: the answer service is unreachable right now. Please try again in a moment.",
  ownWordsPrompt: "Reply with your own answer.",
  modalTitle: "Your answer",
  credential:
    "That looks like a password, key or token, so it was not recorded. Never send credentials here: use the secrets flow instead.",
  empty: "Please reply with a number, an option, or your own words.",
} as const;
