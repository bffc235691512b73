import { describe, expect, it } from "vitest";
import { placeModuleError } from "../state/module-errors";
import { moduleSchema } from "../state/module-schema";
import { errorFields, ModuleError } from "./errors";

// An Error as the module throws it once it gives the path apart (wasm/bindings.cpp).
const thrown = (message: string, path: string, detail: string) =>
  Object.assign(new Error(message), { path, detail });

describe("a module error from the worker to its field", () => {
  it("keeps the path and the detail of the module's Error", () => {
    const message = "model.num_query_groups: must divide num_attention_heads (64), got 7";
    const fields = errorFields(
      thrown(message, "model.num_query_groups", "must divide num_attention_heads (64), got 7"),
    );
    expect(fields).toEqual({
      message,
      path: "model.num_query_groups",
      detail: "must divide num_attention_heads (64), got 7",
    });
    // Through postMessage's structured clone, as the client receives it.
    const error = new ModuleError(structuredClone(fields));
    expect(error).toBeInstanceOf(Error);
    expect(error.message).toBe(message);
    expect(error.path).toBe("model.num_query_groups");
    expect(placeModuleError(error, moduleSchema())).toEqual({
      field: "custom.num_query_groups",
      text: message,
    });
  });

  it("keeps the message's id and values, where the module gives them, through the worker", () => {
    const text = { id: "input error: is required", args: {} };
    const error = new ModuleError(
      structuredClone(
        errorFields(Object.assign(thrown("model: is required", "model", "is required"), { text })),
      ),
    );
    expect(error.text).toEqual(text);
    expect(errorFields(Object.assign(new Error("m"), { text: "not a text" }))).toEqual({
      message: "m",
    });
  });

  it("sends the message alone for errors without them, or with other types", () => {
    expect(errorFields(new Error("input: not JSON"))).toEqual({ message: "input: not JSON" });
    expect(errorFields(Object.assign(new Error("m"), { path: 3 }))).toEqual({ message: "m" });
    expect(errorFields("thrown text")).toEqual({ message: "thrown text" });
    const old = new ModuleError(errorFields(new Error("cluster.num_gpus: too many")));
    expect("path" in old && old.path).toBeFalsy();
    expect(placeModuleError(old, moduleSchema()).field).toBe("numGpus");
  });

  it("places an error that names no field in the banner", () => {
    const error = new ModuleError(errorFields(thrown("internal error: x: y", "", "x: y")));
    expect(placeModuleError(error, moduleSchema()).field).toBeNull();
  });
});
