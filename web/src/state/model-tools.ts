// The model section's calls into the module, without the DOM: importing a Hugging Face
// config.json, the custom form's fields for a model object, and the custom model's live
// parameter count.
import type { HfImport, ParameterCounts } from "../paraplan/types";
import type { Client } from "../worker/client";
import { CancelledError } from "../worker/errors";
import type { FieldError } from "./checker";
import type { InputLimits } from "./module-schema";
import { moduleErrorText } from "./module-errors";
import { CUSTOM_MODEL_FIELDS, type PageState } from "./page-state";
import { buildCustomModel } from "./scenario";

// The form's MoE fields, read from and written to the model's `moe` object.
export const MOE_FIELDS = [
  "num_experts",
  "top_k",
  "moe_ffn_hidden_size",
  "num_shared_experts",
  "first_k_dense_layers",
] as const;

// The keys of `object` that are not in `shown`.
function rest(object: Record<string, unknown>, shown: readonly string[]): Record<string, unknown> {
  return Object.fromEntries(Object.entries(object).filter(([key]) => !shown.includes(key)));
}

// The custom form holding `model` (a scenario's model object), every key of it included:
// those without a field of their own go to other_fields.
export function customFromModel(model: Record<string, unknown>): PageState["custom"] {
  const moe = (model.moe ?? {}) as Record<string, unknown>;
  const other = rest(model, [...CUSTOM_MODEL_FIELDS, "moe"]);
  const otherMoe = rest(moe, MOE_FIELDS);
  if (Object.keys(otherMoe).length > 0) other.moe = otherMoe;
  const moeFields: readonly string[] = MOE_FIELDS;
  const custom = Object.fromEntries(
    CUSTOM_MODEL_FIELDS.map((field) => {
      const value = moeFields.includes(field) ? moe[field] : model[field];
      return [field, value === undefined ? "" : String(value)];
    }),
  ) as PageState["custom"];
  custom.other_fields = Object.keys(other).length > 0 ? JSON.stringify(other) : "";
  return custom;
}

export type CountOutcome =
  | { status: "counted"; counts: ParameterCounts }
  | { status: "invalid"; errors: FieldError[] } // the form has mistakes: nothing was asked
  | { status: "refused"; message: string } // the module refused the model
  | { status: "cancelled" }; // the worker was stopped (a search was cancelled)

export class ModelTools {
  constructor(
    private readonly client: Client,
    private readonly limits: InputLimits,
  ) {}

  // Rejects with the module's error (a ModuleError naming the config's key).
  importHfConfig(text: string): Promise<HfImport> {
    return this.client.call("importHfConfig", text);
  }

  async parameterCounts(custom: PageState["custom"]): Promise<CountOutcome> {
    const model = buildCustomModel(custom, this.limits);
    if (!model.ok) return { status: "invalid", errors: model.errors };
    try {
      return { status: "counted", counts: await this.client.call("parameterCounts", model.value) };
    } catch (error) {
      if (error instanceof CancelledError) return { status: "cancelled" };
      const message = error instanceof Error ? moduleErrorText(error) : String(error);
      return { status: "refused", message };
    }
  }
}
