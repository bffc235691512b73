import { describe, expect, it } from "vitest";
import { catalogue } from "../testing/presets";
import { rankedStrategy } from "../testing/strategies";
import { COLUMNS } from "../ui/columns";
import { moduleSchema } from "./module-schema";
import { defaultState, type PageState } from "./page-state";
import { buildSearchRequest } from "./scenario";
import { decodeState, encodeState } from "./url-state";

const request = (margin: string) => {
  const state: PageState = { ...defaultState(), memoryMargin: margin };
  return buildSearchRequest(state, catalogue, moduleSchema());
};

describe("the memory margin", () => {
  it("is left to the core's default when empty", () => {
    const built = request("");
    expect(built.ok).toBe(true);
    if (built.ok) expect(built.value.options.memory_margin).toBeUndefined();
  });

  it("goes to the search as GiB or a percentage, as the CLI's --memory-margin", () => {
    for (const margin of ["6", "2.5", "10%"]) {
      const built = request(margin);
      expect(built.ok).toBe(true);
      if (built.ok) expect(built.value.options.memory_margin).toBe(margin);
    }
  });

  it("names the field when it is not GiB or N%", () => {
    for (const margin of ["abc", "-1", "95%", "5%%", "2GiB", "2000"]) {
      const built = request(margin);
      expect(built.ok).toBe(false);
      if (!built.ok) expect(built.errors.map((e) => e.field)).toContain("memoryMargin");
    }
  });

  it("reads a percentage out of range as a percentage error", () => {
    const built = request("200%");
    expect(built.ok).toBe(false);
    if (!built.ok)
      expect(built.errors).toEqual([
        { field: "memoryMargin", key: "error.memoryMarginPercent", params: { max: 90 } },
      ]);
    const gib = request("2000");
    if (!gib.ok) expect(gib.errors[0].key).toBe("error.memoryMargin");
  });

  it("round-trips through the URL", () => {
    const state: PageState = { ...defaultState(), memoryMargin: "8%" };
    expect(decodeState(encodeState(state)).memoryMargin).toBe("8%");
  });
});

describe("the headroom column", () => {
  const column = COLUMNS.find((c) => c.id === "headroom");

  it("shows each strategy's smallest free memory and marks tight ones", () => {
    expect(column).toBeDefined();
    const roomy = { ...rankedStrategy({ rank: 1 }), headroom_gib: 20, tight: false };
    const tight = { ...rankedStrategy({ rank: 2 }), headroom_gib: 5, tight: true };
    expect(column!.text(roomy)).not.toContain("⚠");
    expect(column!.text(tight)).toContain("⚠");
    expect(column!.csv.value(tight)).toBe(5);
    expect(column!.descendingFirst).toBe(true);
  });
});
