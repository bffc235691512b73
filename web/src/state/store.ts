// The page state and who wants to know when it changes.
import type { PageState } from "./page-state";

export type Listener = (state: PageState, previous: PageState) => void;

export class Store {
  private readonly listeners: Listener[] = [];

  constructor(private state: PageState) {}

  get(): PageState {
    return this.state;
  }

  update(change: (draft: PageState) => void): void {
    const previous = this.state;
    const draft = structuredClone(previous);
    change(draft);
    this.state = draft;
    for (const listener of this.listeners) listener(draft, previous);
  }

  subscribe(listener: Listener): void {
    this.listeners.push(listener);
  }
}
