// Building elements without HTML strings: text always goes in as textContent,
// so nothing typed by a user or read from the URL is ever parsed as markup.
import type { MessageKey } from "../i18n/messages";
import { t } from "../i18n/i18n";

export type Child = Node | string | null | undefined | false;

export interface Props {
  class?: string;
  text?: string;
  // Translated text, retranslated when the language changes.
  i18n?: MessageKey;
  testid?: string;
  attrs?: Record<string, string>;
  // Attributes holding translated text: {placeholder: "model.filterPlaceholder"}.
  i18nAttrs?: Partial<Record<"placeholder" | "title" | "aria-label", MessageKey>>;
  on?: Partial<{
    [E in keyof HTMLElementEventMap]: (event: HTMLElementEventMap[E]) => void;
  }>;
}

export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  props: Props = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  if (props.class) element.className = props.class;
  if (props.testid) element.dataset.testid = props.testid;
  for (const [name, value] of Object.entries(props.attrs ?? {})) element.setAttribute(name, value);
  for (const [name, key] of Object.entries(props.i18nAttrs ?? {})) {
    element.setAttribute(`data-i18n-${name}`, key);
    element.setAttribute(name, t(key));
  }
  for (const [name, listener] of Object.entries(props.on ?? {})) {
    element.addEventListener(name, listener as EventListener);
  }
  if (props.i18n) {
    element.dataset.i18n = props.i18n;
    element.textContent = t(props.i18n);
  } else if (props.text !== undefined) {
    element.textContent = props.text;
  }
  append(element, ...children);
  return element;
}

export function append(parent: Node, ...children: Child[]): void {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    parent.appendChild(typeof child === "string" ? document.createTextNode(child) : child);
  }
}

export function byId<T extends HTMLElement>(id: string): T {
  const element = document.getElementById(id);
  if (element === null) throw new Error(`#${id} is missing from index.html`);
  return element as T;
}

// Resolves once the browser has painted what is in the document now (the task after the next
// animation frame), or after `limitMs` where frames do not come (a hidden tab).
export function afterNextPaint(limitMs = 100): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, limitMs);
    requestAnimationFrame(() =>
      setTimeout(() => {
        clearTimeout(timer);
        resolve();
      }, 0),
    );
  });
}

// Resolves in a later task (after whatever the browser has queued: input, the worker's
// messages, a frame), so that a long piece of work can be cut into tasks.
export function nextTask(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 0));
}
