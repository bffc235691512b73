// Checking what the user typed, field by field, so that each mistake is reported at the
// field that holds it: whole numbers, decimals and choices within the module's limits.
import type { MessageKey } from "../i18n/messages";
import { parseDecimal, parseInteger } from "./numbers";
import type { Range } from "./module-schema";

// A field of the form: a PageState key, "custom.<field>", "pinned.<field>" or "gpu.<type>.<field>".
export type FieldId = string;

export interface FieldError {
  field: FieldId;
  key: MessageKey; // the message, in i18n/messages.ts
  params?: Record<string, string | number>;
}

export type Built<T> = { ok: true; value: T } | { ok: false; errors: FieldError[] };

export function built<T>(value: T, errors: FieldError[]): Built<T> {
  return errors.length > 0 ? { ok: false, errors } : { ok: true, value };
}

export class Checker {
  readonly errors: FieldError[] = [];

  fail(field: FieldId, key: MessageKey, params?: FieldError["params"]): void {
    this.errors.push({ field, key, params });
  }

  // Whether `field` has an error already.
  failed(field: FieldId): boolean {
    return this.errors.some((error) => error.field === field);
  }

  integer(field: FieldId, text: string, { min, max }: Range): number {
    const value = parseInteger(text);
    if (text.trim() === "") this.fail(field, "error.required");
    else if (value === null || value < min || value > max)
      this.fail(field, "error.integer", { min, max });
    return value ?? 0;
  }

  // An integer, or undefined when the field is empty.
  optionalInteger(field: FieldId, text: string, range: Range): number | undefined {
    return text.trim() === "" ? undefined : this.integer(field, text, range);
  }

  decimal(field: FieldId, text: string, { min, max }: Range): number {
    const value = parseDecimal(text);
    if (value === null || value < min || value > max)
      this.fail(field, "error.number", { min, max });
    return value ?? 0;
  }

  choice<T extends string>(field: FieldId, text: string, values: readonly T[]): T {
    const value = values.find((candidate) => candidate === text);
    if (value === undefined) this.fail(field, "error.choice", { values: values.join(", ") });
    return value ?? values[0];
  }
}
