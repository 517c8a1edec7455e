import { EDIT_QID } from "./approval.js";
import { approvalAnswer, editRefusal, recordedText } from "./shared.js";
import { answersOf, saveDraft } from "./drafts.js";
import { toGatewayError } from "./gateway-link.js";
import { addNote, answerableRecords, busy, composerRecord, draftFor, errors, forget, isAnswerable, isAnswered, records, setCollapsed, ui, upsert } from "./state.js";
/** @import { GatewayError, QuestionRecord, ReadAs } from "./shared.js" */
/** @import { GatewayCall } from "./gateway-link.js" */
/** @import { FormActions } from "./question-form.js" */
/** @import { FormError } from "./state.js" */
/** @import { Focus } from "./view.js" */

/**
 * What question.reply answers: how the reply was read, and the record after it (none when it could not be read).
 * @typedef {{ kind: "answered" | "partial" | "skip" | "invalid", message?: string, readAs?: ReadAs, missing?: string[], record?: QuestionRecord }} ReplyOutcome
 */

const WEB_BY = { surface: "web", via: "web" };
const TEXT_BY = { surface: "web", via: "text" };
const NEEDS_ANSWER = "Choose an option, or type your own answer.";
const CREDENTIAL_REFUSED = "That looks like a password, key or token, so it was not recorded. Use the secrets flow for credentials.";
const NOT_CONNECTED = "Not connected. Your choices are kept: try again once the page reconnects.";

/**
 * What the person can do. `call` is the gateway link's request; `render(focus?)` redraws the page and moves the focus.
 * @param {{ call: GatewayCall, render: (focus?: Focus) => void }} page
 */
export function createActions({ call, render }) {
  /** @param {QuestionRecord} record */
  const skipParams = (record) => ({ id: record.id, cancel: true, reason: "skipped", by: WEB_BY });

  /**
   * @param {QuestionRecord} record
   * @param {FormError} error
   */
  function setError(record, error) {
    errors.set(record.id, error);
    render();
  }

  /** @param {QuestionRecord} record */
  function clearError(record) {
    if (errors.delete(record.id)) render();
  }

  /** @param {QuestionRecord} record */
  function changed(record) {
    saveDraft(record.id, draftFor(record));
    // A choice changed under an open "discard these answers?": the question it asked is stale, so it goes.
    if (ui.confirmSkip === record.id) {
      ui.confirmSkip = null;
      errors.delete(record.id);
      render();
    } else clearError(record);
  }

  /**
   * Skip skips the whole prompt (every question of it). With nothing chosen yet it goes at once; with answers chosen
   * the form first asks, in the page, whether to discard them.
   * @param {QuestionRecord} record
   */
  function skip(record) {
    const draft = draftFor(record);
    if (ui.confirmSkip !== record.id && record.questions.some((q) => isAnswered(q, draft))) {
      ui.confirmSkip = record.id;
      render({ key: "skip-cancel", id: record.id });
      return;
    }
    ui.confirmSkip = null;
    void resolve(record, skipParams(record));
  }

  /**
   * "Keep my answers": the confirm step goes, the choices stay, and the focus is back on Skip.
   * @param {QuestionRecord} record
   */
  function keepAnswers(record) {
    if (ui.confirmSkip === record.id) ui.confirmSkip = null;
    render({ key: "skip", id: record.id });
  }

  /**
   * The docked panel: one question at a time; a radio choice advances, Enter is Next (Submit on the last step).
   * Nothing is sent on a choice alone: on the last step (or the only one) a choice moves the focus to Submit, so a
   * slip of the finger or a wrong number key is corrected by choosing again, and Submit or Enter sends.
   * @param {QuestionRecord} record
   * @returns {FormActions}
   */
  function stepper(record) {
    const draft = draftFor(record);
    const last = record.questions.length - 1;
    /** @param {number} step */
    const goTo = (step) => {
      draft.step = step;
      saveDraft(record.id, draft);
      errors.delete(record.id);
      render("step");
    };
    return {
      changed: () => changed(record),
      chose: (_question, { advance }) => {
        changed(record);
        if (!advance) return;
        if (draft.step < last) goTo(draft.step + 1);
        else render("submit"); // the last step: look back over the answers (or change the choice), then Submit
      },
      next: () => {
        const q = record.questions[draft.step];
        if (q && !isAnswered(q, draft)) setError(record, { qid: q.id, text: NEEDS_ANSWER });
        else if (draft.step < last) goTo(draft.step + 1);
        else void submit(record);
      },
      back: () => {
        if (draft.step > 0) goTo(draft.step - 1);
      },
      submit: () => void submit(record),
      skip: () => skip(record),
      keepAnswers: () => keepAnswers(record),
      edited: (text) => edited(record, text),
      allowEdited: () => void answerApproval(record, true),
    };
  }

  /**
   * An approval's edit box changed: kept in the draft (a redraw or a reload keeps it); its error goes.
   * @param {QuestionRecord} record
   * @param {string} text
   */
  function edited(record, text) {
    const draft = draftFor(record);
    draft.edit = text;
    saveDraft(record.id, draft);
    if (errors.get(record.id)?.qid === EDIT_QID) clearError(record);
  }

  /**
   * An approval's answer with its edit box (issue 35 §3, the rule of approvalAnswer): "Allow with changes"
   * (`allowEdited`), or the chosen option with the box changed. A problem with the box (invalid JSON, a grant with
   * changes) is said at the box, and nothing is sent.
   * @param {QuestionRecord} record
   * @param {boolean} allowEdited
   */
  async function answerApproval(record, allowEdited) {
    if (!record.approval) return;
    const draft = draftFor(record);
    const outcome = approvalAnswer(record.approval, answersOf(record, draft), draft.edit, allowEdited);
    if ("problem" in outcome) {
      setError(record, { qid: EDIT_QID, text: outcome.problem });
      return;
    }
    await resolve(record, { id: record.id, answers: outcome.answers, ...(outcome.edit ? { edit: outcome.edit } : {}), by: WEB_BY });
  }

  /**
   * The phone card: every question at once; a tap chooses, and Submit sends.
   * @param {QuestionRecord} record
   * @returns {FormActions}
   */
  function stacked(record) {
    return {
      changed: () => changed(record),
      chose: () => changed(record),
      next: () => void submit(record),
      back: () => {},
      submit: () => void submit(record),
      skip: () => skip(record),
      keepAnswers: () => keepAnswers(record),
      edited: (text) => edited(record, text),
      allowEdited: () => void answerApproval(record, true),
    };
  }

  /** @param {QuestionRecord} record */
  async function submit(record) {
    const draft = draftFor(record);
    const missing = record.questions.find((q) => !isAnswered(q, draft));
    if (missing) {
      draft.step = record.questions.indexOf(missing);
      saveDraft(record.id, draft);
      errors.set(record.id, { qid: missing.id, text: NEEDS_ANSWER });
      render("step");
      return;
    }
    if (record.approval) await answerApproval(record, false);
    else await resolve(record, { id: record.id, answers: answersOf(record, draft), by: WEB_BY });
  }

  /**
   * @param {QuestionRecord} record
   * @param {object} params
   */
  async function resolve(record, params) {
    if (busy.has(record.id)) return;
    busy.add(record.id);
    errors.delete(record.id);
    render();
    try {
      upsert(await call("question.resolve", params));
      ui.reveal = record.id;
    } catch (thrown) {
      const error = toGatewayError(thrown);
      if (error.code === "QUESTION_ALREADY_TERMINAL" || error.code === "QUESTION_NOT_FOUND") await refresh(record.id);
      else errors.set(record.id, describeFailure(record, error));
    } finally {
      busy.delete(record.id);
      render("step");
    }
  }

  /**
   * A refused answer, pinned to its question when the gateway says which; a credential in Other is forgotten.
   * @param {QuestionRecord} record
   * @param {GatewayError} error
   * @returns {FormError}
   */
  function describeFailure(record, error) {
    if (error.code === "DISCONNECTED" || error.code === "TIMEOUT") return { text: NOT_CONNECTED };
    const edit = editRefusal(error);
    if (edit !== undefined) return { qid: EDIT_QID, text: edit };
    const issue = (error.issues ?? []).find((i) => typeof i.path === "string" && i.path.startsWith("answers."));
    const q = issue && record.questions.find((question) => `answers.${question.id}` === issue.path);
    if (!q) return { text: error.message };
    const draft = draftFor(record);
    draft.step = record.questions.indexOf(q);
    if (error.code === "CREDENTIAL_REFUSED") {
      draft.other.set(q.id, "");
      saveDraft(record.id, draft);
      return { qid: q.id, text: CREDENTIAL_REFUSED };
    }
    const text = String(issue.message);
    return { qid: q.id, text: text.charAt(0).toUpperCase() + text.slice(1) };
  }

  /**
   * Re-reads one record (resolved elsewhere, or gone).
   * @param {string} id
   */
  async function refresh(id) {
    try {
      upsert(await call("question.get", { id }));
    } catch (thrown) {
      if (toGatewayError(thrown).code === "QUESTION_NOT_FOUND") forget(id);
    }
  }

  /**
   * The composer's plain text goes through the same parser as a chat reply (question.reply). Resolves true when
   * the reply was taken (the composer is then cleared). An unreadable reply is never echoed: it may be a secret.
   * @param {string} text
   * @returns {Promise<boolean>}
   */
  async function reply(text) {
    const record = composerRecord();
    if (!text || !record || ui.replying) return false;
    ui.replying = true;
    render();
    try {
      const outcome = /** @type {ReplyOutcome} */ (await call("question.reply", { id: record.id, text, by: TEXT_BY }));
      if (outcome.kind === "invalid") {
        addNote(record.id, "error", outcome.message ?? "That reply could not be read. Answer with a number, an option, or your own words.");
        return false;
      }
      addNote(record.id, "you", text);
      if (outcome.readAs && Object.keys(outcome.readAs).length > 0) addNote(record.id, "system", recordedText(record.questions, outcome.readAs, "Read as"));
      if (outcome.kind === "partial") {
        const headers = (outcome.missing ?? []).map((qid) => record.questions.find((q) => q.id === qid)?.header ?? qid);
        addNote(record.id, "system", `Still needed: ${headers.join(", ")}. Reply with the rest, or answer them above.`);
      }
      if (outcome.record) upsert(outcome.record);
      else await refresh(record.id);
      ui.reveal = record.id;
      return true;
    } catch (thrown) {
      const error = toGatewayError(thrown);
      if (error.code === "QUESTION_ALREADY_TERMINAL") await refresh(record.id);
      // Refused while the question is still open to answer: a skip typed within a late window, say.
      const still = records.get(record.id);
      if (error.code !== "QUESTION_ALREADY_TERMINAL" || (still && isAnswerable(still))) {
        addNote(record.id, "error", error.code === "DISCONNECTED" || error.code === "TIMEOUT" ? NOT_CONNECTED : error.message);
      }
      return false;
    } finally {
      ui.replying = false;
      render();
    }
  }

  return {
    stepper,
    stacked,
    reply,
    refresh,
    /** @param {number} delta */
    page(delta) {
      const open = answerableRecords();
      const next = open[open.findIndex((r) => r.id === ui.currentId) + delta];
      if (next) {
        ui.currentId = next.id;
        render("step");
      }
    },
    /** @param {string} id */
    open(id) {
      ui.currentId = id;
      setCollapsed(false);
      render("step");
    },
    collapse() {
      setCollapsed(true);
      render("composer");
    },
    expand() {
      setCollapsed(false);
      render("step");
    },
  };
}

