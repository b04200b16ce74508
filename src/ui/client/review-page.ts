// The review page (#/review; docs/ui.md, "Answering review questions"): every element waiting for
// a person across the state folder's runs, oldest first, each with a form — the element's state
// as the model saw it, per waiting question its labels or `uncertain` (the model's answer and
// confidence beside it when it was escalated), an optional note — and one name field for who
// answers, remembered in localStorage. An answer goes to the server with the tab's write token
// (write-token.ts); the element then shows as answered, and a refusal is shown in words. The list
// follows the runs as they change (new elements added, those answered elsewhere marked).

import { h, clear, pretty, when } from "./dom.js";
import { runHash } from "./run-page.js";
import { writeToken } from "./write-token.js";
import { CodedError } from "../../shared/coded-error.js";
import type { Source } from "./source.js";
import type { ReviewAnswerBody, ReviewAnsweredDoc, ReviewElementDoc, ReviewQueueDoc } from "../review-types.js";

const NAME_KEY = "switchyard.reviewer";
const UNCERTAIN = "uncertain";

/** The name remembered from an earlier answer, or "". */
function rememberedName(): string {
  try {
    return localStorage.getItem(NAME_KEY) ?? "";
  } catch {
    return "";
  }
}

function rememberName(name: string): void {
  try {
    localStorage.setItem(NAME_KEY, name);
  } catch {
    // Storage turned off: the name is asked again next time.
  }
}

const elementName = (e: { task: string; key: string | null }) => `${e.task}${e.key === null ? "" : `[${e.key}]`}`;

/** The link to this page with how many elements wait, for the runs page; empty when none does. */
export function reviewLink(waiting: number): HTMLElement {
  return waiting > 0
    ? h("a", { href: "#/review", class: "review-link" }, `review queue: ${waiting} element(s) waiting`)
    : h("a", { href: "#/review", class: "review-link quiet" }, "review queue");
}

/** Why the page cannot answer, in words, or null when it can. */
function cannotWrite(doc: ReviewQueueDoc): string | null {
  if (!doc.writable) return "This server only reads: answers are given with `switchyard review RUN --key K --answer Q=LABEL`.";
  if (writeToken() === null)
    return "This page can read the queue but not answer: it was not opened from the address `switchyard ui` printed (it ends in #token=…; a new one at each start). Open that address in this tab to answer, or answer with `switchyard review RUN --key K --answer Q=LABEL`.";
  return null;
}

/** The queue as the server has it now. */
async function fetchQueue(): Promise<ReviewQueueDoc> {
  const r = await fetch("/api/review", { headers: { accept: "application/json" } });
  // The server's own JSON (api/review): typed as it documents it.
  const doc: ReviewQueueDoc & { error?: { code: string; message: string } } = await r.json();
  if (!r.ok) throw new CodedError(doc.error?.code ?? "ui-server-error", doc.error?.message ?? `${r.status} ${r.statusText}`);
  return doc;
}

const elementId = (e: ReviewElementDoc) => JSON.stringify([e.run, e.task, e.key]);
const countText = (n: number) => (n === 0 ? "Nothing waits for review." : `${n} element(s) wait for review, oldest first.`);

/**
 * The review page: the waiting elements of every run, each with its form. It follows the runs'
 * changes: elements that start waiting are added at the end, and one answered elsewhere (another
 * tab, `switchyard review`) or timed out is marked so, without touching the forms being filled.
 */
export async function reviewPage(root: HTMLElement, source: Source): Promise<() => void> {
  const doc = await fetchQueue();
  const blocked = cannotWrite(doc);
  const name = h("input", { type: "text", class: "reviewer", "aria-label": "your name", maxlength: 100, value: rememberedName() });
  name.addEventListener("change", () => rememberName(name.value.trim()));
  const count = h("p", { class: "meta review-count" }, countText(doc.elements.length));
  const list = h("div", { class: "review-list" });
  const shown = new Map<string, HTMLFormElement>();
  const sync = (next: ReviewQueueDoc) => {
    const waiting = new Set(next.elements.map(elementId));
    for (const [id, form] of shown) if (!waiting.has(id)) endedElsewhere(form);
    for (const e of next.elements) {
      if (shown.has(elementId(e))) continue;
      const form = elementForm(e, () => name, blocked !== null);
      shown.set(elementId(e), form);
      list.append(form);
    }
    count.textContent = countText(next.elements.length);
  };
  sync(doc);
  clear(root);
  root.append(
    h(
      "div",
      { class: "review-page" },
      h("a", { href: "#/" }, "← runs"),
      h("h1", {}, "review queue"),
      blocked ? h("p", { class: "review-blocked" }, blocked) : null,
      h("label", { class: "reviewer-field" }, "answering as ", name, h("span", { class: "meta" }, " (recorded with each answer)")),
      count,
      list,
    ),
  );
  // One fetch at a time; a change that arrives meanwhile fetches once more after it.
  let busy = false;
  let again = false;
  const refresh = async () => {
    if (busy) return void (again = true);
    busy = true;
    try {
      do {
        again = false;
        sync(await fetchQueue());
      } while (again);
    } catch {
      // The server went away: the page keeps what it shows; the next change tries again.
    } finally {
      busy = false;
    }
  };
  return source.followRuns(() => void refresh());
}

/** Marks an element that no longer waits though this page did not answer it. */
function endedElsewhere(form: HTMLFormElement): void {
  // Its own answer (sent, or on its way) is shown by submit, not taken for someone else's.
  if (form.classList.contains("answered") || form.classList.contains("ended") || form.classList.contains("sending")) return;
  form.classList.add("ended");
  for (const el of Array.from(form.querySelectorAll<HTMLInputElement | HTMLButtonElement>("input, button"))) el.disabled = true;
  const result = form.querySelector(".review-result");
  if (result) {
    result.textContent = "No longer waits: answered elsewhere (another page, or `switchyard review`), or its wait timed out.";
    result.className = "review-result meta";
  }
}

/** One question's choice: its labels and `uncertain` as radio buttons, the model's answer beside them. */
function questionField(formId: string, q: ReviewElementDoc["questions"][number]): HTMLFieldSetElement {
  const choices = [...q.labels, UNCERTAIN].map((label) =>
    h(
      "label",
      { class: "choice", title: q.descriptions[label] ?? null },
      h("input", { type: "radio", name: `${formId}-${q.id}`, value: label, "data-question": q.id }),
      ` ${label}`,
    ),
  );
  return h(
    "fieldset",
    { class: "review-question" },
    h("legend", {}, `${q.id}: ${q.ask}`),
    q.model ? h("p", { class: "meta" }, `the model answered ${q.model.label} (confidence ${q.model.confidence.toFixed(2)})`) : null,
    h("div", { class: "choices" }, ...choices),
  );
}

let forms = 0;

/** An element's form: where it waits, its state, a choice per question, a note, and the answer button. */
function elementForm(e: ReviewElementDoc, name: () => HTMLInputElement, blocked: boolean): HTMLFormElement {
  const id = `review-${++forms}`;
  const note = h("input", { type: "text", class: "note", "aria-label": "note", maxlength: 4000, placeholder: "note (optional)" });
  const button = h("button", { type: "submit", disabled: blocked }, "answer");
  const result = h("p", { class: "review-result", role: "status" });
  const form = h(
    "form",
    { class: "review-item", "data-run": e.run, "data-task": e.task, "data-key": e.key ?? "" },
    h(
      "div",
      { class: "review-where" },
      h("strong", {}, elementName(e)),
      " in run ",
      h("a", { href: runHash(e.run) }, e.run),
      h("span", { class: "meta" }, ` · waiting since ${when(e.since)}`),
    ),
    h("details", { class: "review-state" }, h("summary", {}, "the element's state as the model saw it"), h("pre", {}, pretty(e.state))),
    ...e.questions.map((q) => questionField(id, q)),
    h("div", { class: "review-submit" }, note, button),
    result,
  );
  form.addEventListener("submit", (ev) => {
    ev.preventDefault();
    void submit(e, form, { name: name(), note, button, result });
  });
  return form;
}

interface FormParts {
  name: HTMLInputElement;
  note: HTMLInputElement;
  button: HTMLButtonElement;
  result: HTMLElement;
}

/** Sends an element's answers; marks it answered, or says in words why it was refused. */
async function submit(e: ReviewElementDoc, form: HTMLFormElement, parts: FormParts): Promise<void> {
  const { name, note, button, result } = parts;
  const say = (text: string, cls: string) => ((result.textContent = text), (result.className = `review-result ${cls}`));
  const who = name.value.trim();
  if (who === "") return void (say("Give your name above: it is recorded with the answer.", "error"), name.focus());
  const answers: Record<string, string> = {};
  for (const input of Array.from(form.querySelectorAll<HTMLInputElement>("input[type=radio]:checked")))
    answers[input.dataset.question ?? ""] = input.value;
  const missing = e.questions.filter((q) => answers[q.id] === undefined).map((q) => q.id);
  if (missing.length > 0) return void say(`Choose an answer to ${missing.join(", ")}.`, "error");
  rememberName(who);
  const body: ReviewAnswerBody = { task: e.task, key: e.key, answers, who, ...(note.value.trim() ? { note: note.value.trim() } : {}) };
  button.disabled = true;
  say("sending…", "meta");
  form.classList.add("sending");
  try {
    const r = await fetch(`/api/runs/${encodeURIComponent(e.run)}/review`, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json", "x-switchyard-token": writeToken() ?? "" },
      body: JSON.stringify(body),
    });
    const doc: ReviewAnsweredDoc & { error?: { message: string; hint?: string } } = await r.json();
    if (!r.ok) {
      button.disabled = false;
      return void say(`Not recorded: ${doc.error?.message ?? r.statusText}${doc.error?.hint ? ` (${doc.error.hint})` : ""}`, "error");
    }
    for (const input of Array.from(form.querySelectorAll("input"))) input.disabled = true;
    form.classList.add("answered");
    const given = doc.answers.map((a) => `${a.question} = ${a.label}`).join(", ");
    say(`Answered ${given} by ${doc.by}${doc.note ? ` (note: ${doc.note})` : ""}; the run takes it up.`, "done");
  } catch (err) {
    button.disabled = false;
    say(`Not recorded: the server could not be reached (${String(err)}).`, "error");
  } finally {
    form.classList.remove("sending");
  }
}
