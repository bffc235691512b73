// The page's side of the worker: requests with ids, answered by promises.
// Cancelling terminates the worker (a search cannot be interrupted otherwise:
// the worker is busy inside the WebAssembly call); the next request starts a
// fresh one.
import type { SearchResult } from "../paraplan/types";
import { compiledModule } from "./compiled";
import { CancelledError, ModuleError } from "./errors";
import { mark } from "./marks";
import type { Method, MethodRequest, Methods, ModuleMessage, Progress, Response } from "./protocol";

export interface Listeners {
  onProgress?: (progress: Progress) => void;
  onPartial?: (index: number, result: SearchResult) => void;
}

interface Pending extends Listeners {
  resolve: (result: Methods[Method]["result"]) => void;
  reject: (error: Error) => void;
}

// What the page needs of a client; the tests give their own.
export interface Client {
  call<M extends Method>(
    method: M,
    params: Methods[M]["params"],
    listeners?: Listeners,
  ): Promise<Methods[M]["result"]>;
  cancel(): void;
}

export class ParaplanClient implements Client {
  private worker: Worker | null = null;
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;

  // Rejects with CancelledError when cancelled, and with ModuleError when the module refuses.
  call<M extends Method>(
    method: M,
    params: Methods[M]["params"],
    listeners: Listeners = {},
  ): Promise<Methods[M]["result"]> {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      // The worker answers a request for M with M's result.
      this.pending.set(id, { ...listeners, resolve: resolve as Pending["resolve"], reject });
      const request: MethodRequest<M> = { id, method, params };
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
      mark("worker-created");
      const worker = this.worker;
      void compiledModule().then((wasmModule) => {
        const message: ModuleMessage = { wasmModule };
        worker.postMessage(message);
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
        mark("progress-received");
        call.onProgress?.(response.progress);
        break;
      case "partial":
        call.onPartial?.(response.index, response.result);
        break;
      case "result":
        this.pending.delete(response.id);
        call.resolve(response.result);
        break;
      case "error": {
        this.pending.delete(response.id);
        const { message, path, detail, text } = response;
        call.reject(new ModuleError({ message, path, detail, text }));
        break;
      }
    }
  }
}
