// A worker client whose calls the unit tests answer: each call waits in `calls` until the test
// resolves or rejects it; cancel() rejects every waiting call as the worker's cancel does.
import type { Client, Listeners } from "../worker/client";
import { CancelledError } from "../worker/errors";
import type { Method, Methods } from "../worker/protocol";

export interface Call {
  method: Method;
  params: unknown;
  listeners: Listeners;
  resolve: (result: unknown) => void;
  reject: (error: Error) => void;
}

export class FakeClient implements Client {
  readonly calls: Call[] = [];

  call<M extends Method>(
    method: M,
    params: Methods[M]["params"],
    listeners: Listeners = {},
  ): Promise<Methods[M]["result"]> {
    return new Promise((resolve, reject) => {
      this.calls.push({ method, params, listeners, resolve: resolve as Call["resolve"], reject });
    });
  }

  cancel(): void {
    for (const call of this.calls.splice(0)) call.reject(new CancelledError());
  }

  last(): Call {
    return this.calls[this.calls.length - 1];
  }
}
