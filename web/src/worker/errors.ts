// How a call to the worker fails: cancelled by the page, or refused by the module.
import type { CoreText } from "../paraplan/types";
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
  readonly text?: CoreText;

  constructor({ message, path, detail, text }: ErrorFields) {
    super(message);
    this.name = "ModuleError";
    if (path !== undefined) this.path = path;
    if (detail !== undefined) this.detail = detail;
    if (text !== undefined) this.text = text;
  }
}

// The module's `text` of an error: an id and its values.
function isCoreText(value: unknown): value is CoreText {
  if (typeof value !== "object" || value === null) return false;
  const text = value as Partial<CoreText>;
  return typeof text.id === "string" && typeof text.args === "object" && text.args !== null;
}

// What the worker sends of an error thrown in it: the message, the module's `path` and `detail`
// when the error has them as strings, and its `text` (id and values) when it has one.
export function errorFields(error: unknown): ErrorFields {
  if (!(error instanceof Error)) return { message: String(error) };
  const fields: ErrorFields = { message: error.message };
  if ("path" in error && typeof error.path === "string") fields.path = error.path;
  if ("detail" in error && typeof error.detail === "string") fields.detail = error.detail;
  if ("text" in error && isCoreText(error.text)) fields.text = error.text;
  return fields;
}
