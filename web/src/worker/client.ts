// The page's side of the worker: requests with ids, answered by promises.
// Cancelling terminates the worker (a search cannot be interrupted otherwise:
// the worker is busy inside the WebAssembly call); the next request starts a
// fresh one.
import type { SearchResult } from "../paraplan/types";
import type { Method, Methods, Progress, Request, Response } from "./protocol";

export class CancelledError extends Error {
  constructor() {
    super("cancelled");
    this.name = "CancelledError";
  }
}

export interface Listeners {
  onProgress?: (progress: Progress) => void;
  onPartial?: (index: number, result: SearchResult) => void;
}

interface Pending extends Listeners {
  resolve: (result: unknown) => void;
  reject: (error: Error) => void;
}

export class ParaplanClient {
  private worker: Worker | null = null;
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;

  call<M extends Method>(
    method: M,
    params: Methods[M]["params"],
    listeners: Listeners = {},
  ): Promise<Methods[M]["result"]> {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, {
        ...listeners,
        resolve: resolve as (r: unknown) => void,
        reject,
      });
      const request: Request<M> = { id, method, params };
      this.ensureWorker().postMessage(request);
    });
  }

  // Stops whatever the worker is doing; every pending call rejects with CancelledError.
  cancel(): void {
    this.stop(new CancelledError());
  }

  private ensureWorker(): Worker {
    if (this.worker === null) {
      this.worker = new Worker(new URL("./worker.ts", import.meta.url), {
        type: "module",
      });
      this.worker.onmessage = (event: MessageEvent<Response>) => this.receive(event.data);
      this.worker.onerror = (event) => {
        event.preventDefault();
        this.stop(new Error(event.message || "the calculator's worker failed to start"));
      };
    }
    return this.worker;
  }

  private stop(reason: Error): void {
    this.worker?.terminate();
    this.worker = null;
    const calls = [...this.pending.values()];
    this.pending.clear();
    for (const call of calls) call.reject(reason);
  }

  private receive(response: Response): void {
    const call = this.pending.get(response.id);
    if (call === undefined) return;
    switch (response.type) {
      case "progress":
        call.onProgress?.(response.progress);
        break;
      case "partial":
        call.onPartial?.(response.index, response.result);
        break;
      case "result":
        this.pending.delete(response.id);
        call.resolve(response.result);
        break;
      case "error":
        this.pending.delete(response.id);
        call.reject(new Error(response.message));
        break;
    }
  }
}
