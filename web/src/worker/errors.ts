// How a call to the worker fails: cancelled by the page, or refused by the module.
import type { ErrorFields } from "./protocol";

export class CancelledError extends Error {
  constructor() {
    super("cancelled");
    this.name = "CancelledError";
  }
}

// An error the module threw: its one-line message, and where the module gives them, the
// JSON path of the value ("" for none) and the message without the path.
export class ModuleError extends Error implements ErrorFields {
  readonly path?: string;
  readonly detail?: string;

  constructor({ message, path, detail }: ErrorFields) {
    super(message);
    this.name = "ModuleError";
    if (path !== undefined) this.path = path;
    if (detail !== undefined) this.detail = detail;
  }
}
