// Placing an error the module reports at the field of the form that holds the value.
//
// The module's errors carry the JSON path of the value (`path`, "" when the error is about no
// field) apart from the message. A module built before that carried the path only at the start
// of the message ("model.num_query_groups: must divide ..."); for it alone, and only when
// `path` is missing, the path is read from the message. Where the module gives the message's id
// and values (`text`), the message is written in the page's language (i18n/core-texts.ts).
import { coreText } from "../i18n/core-texts";
import type { CoreText } from "../paraplan/types";
import type { FieldId } from "./checker";
import type { ModuleSchema } from "./module-schema";
import { CUSTOM_MODEL_FIELDS, PINNED_FIELDS } from "./page-state";

export interface ModuleErrorFields {
  message: string; // the whole one-line message, as the CLI prints it
  path?: string; // the JSON path of the value, "" for none
  detail?: string; // the message without the path
  text?: CoreText; // the message's id and values
}

// A module error as the page shows it: at a field, or in the banner when `field` is null.
export interface PlacedError {
  field: FieldId | null;
  text: string;
}

export function placeModuleError(error: ModuleErrorFields, schema: ModuleSchema): PlacedError {
  return { field: fieldOfPath(pathOf(error), schema), text: moduleErrorText(error) };
}

// The error's one-line message in the page's language: its path, then the message written from
// its id and values; the module's English where it gives no id or the id has no translation.
export function moduleErrorText(error: ModuleErrorFields): string {
  if (error.detail === undefined || error.text === undefined) return error.message;
  const detail = coreText(error.detail, error.text);
  if (detail === error.detail) return error.message;
  return error.path ? `${error.path}：${detail}` : detail;
}

// The JSON path an error is about.
export function pathOf(error: ModuleErrorFields): string {
  if (error.path !== undefined) return error.path;
  const colon = error.message.indexOf(": ");
  return colon < 0 ? "" : error.message.slice(0, colon);
}

// The field of the form that holds the value at a JSON path of the search request's scenario.
export function fieldOfPath(path: string, schema: ModuleSchema): FieldId | null {
  const rules: [RegExp, (match: RegExpMatchArray) => FieldId][] = [
    [
      /^model\.(?:moe\.)?(\w+)/,
      (m) =>
        (CUSTOM_MODEL_FIELDS as readonly string[]).includes(m[1])
          ? `custom.${m[1]}`
          : "custom.other_fields",
    ],
    [/^model\b/, () => "model"],
    [/^training\.global_batch_size\b/, () => "globalBatchSize"],
    [/^training\.seq_length\b/, () => "seqLength"],
    [/^training\.precision\b/, () => "precision"],
    [/^cluster\.num_gpus\b/, () => "numGpus"],
    [/^cluster\.gpus_per_node\b/, () => "gpusPerNode"],
    [/^cluster\b/, () => "cluster"],
    [/^strategy\.(\w+)/, (m) => pinnedFieldOfKey(m[1], schema)],
    [/^strategy\b/, () => "pinned.tp"],
  ];
  for (const [pattern, field] of rules) {
    const match = path.match(pattern);
    if (match) return field(match);
  }
  return null;
}

// The pinned field of a strategy key; the recompute keys all belong to the recompute field.
function pinnedFieldOfKey(key: string, schema: ModuleSchema): FieldId {
  const field = PINNED_FIELDS.find((candidate) => schema.pinned[candidate].key === key);
  if (field !== undefined) return `pinned.${field}`;
  if (key.startsWith("recompute_")) return "pinned.recompute";
  return "pinned.tp";
}
