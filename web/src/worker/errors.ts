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

// What the worker sends of an error thrown in it: the message, and the module's `path` and
// `detail` when the error has them as strings.
export function errorFields(error: unknown): ErrorFields {
  if (!(error instanceof Error)) return { message: String(error) };
  const fields: ErrorFields = { message: error.message };
  if ("path" in error && typeof error.path === "string") fields.path = error.path;
  if ("detail" in error && typeof error.detail === "string") fields.detail = error.detail;
  return fields;
}
