import { describe, expect, it } from "vitest";
import { catalogue, PRESETS } from "../testing/presets";
import { defaultGpusPerNode, normalisePresetName } from "./catalogue";
import { parseGpuInfos } from "./gpu-infos";

// What a user might type for a name: upper case, '_' for '-'.
const shouted = (name: string) => name.toUpperCase().replace(/-/g, "_");

describe("preset names, by the core's rule", () => {
  it("the repository has the presets the contract names", () => {
    expect(PRESETS.gpus.length).toBeGreaterThanOrEqual(12);
    expect(PRESETS.models.length).toBeGreaterThanOrEqual(26);
    expect(PRESETS.gpus.map((gpu) => gpu.id)).toEqual(
      expect.arrayContaining(["a100", "h100", "ascend-910b", "kunlun3", "gb200", "b300", "gb300"]),
    );
  });

  for (const gpu of PRESETS.gpus) {
    it(`finds GPU ${gpu.id} by its id and every alias, in any case and with '_'`, () => {
      for (const name of [gpu.id, ...(gpu.aliases ?? [])]) {
        expect(catalogue.gpu(name)?.id, name).toBe(gpu.id);
        expect(catalogue.gpu(shouted(name))?.id, shouted(name)).toBe(gpu.id);
        expect(catalogue.model(name), `${name} is no model`).toBeUndefined();
      }
    });
  }

  for (const model of PRESETS.models) {
    it(`finds model ${model.id} by its id and every alias, in any case and with '_'`, () => {
      for (const name of [model.id, ...(model.aliases ?? [])]) {
        expect(catalogue.model(name)?.id, name).toBe(model.id);
        expect(catalogue.model(shouted(name))?.id, shouted(name)).toBe(model.id);
      }
    });
  }

  it("keeps hyphens, so names the CLI rejects are rejected", () => {
    expect(catalogue.gpu("h100-sxm")?.id).toBe("h100");
    expect(catalogue.gpu("h100sxm")).toBeUndefined();
    expect(catalogue.gpu("ascend910b")?.id).toBe("ascend-910b"); // an alias of its own
    expect(catalogue.gpu("ascend_910b")?.id).toBe("ascend-910b");
    expect(catalogue.gpu("Ascend-910B")?.id).toBe("ascend-910b");
    expect(catalogue.gpu("H100")?.id).toBe("h100");
    expect(catalogue.model("llama270b")).toBeUndefined();
    expect(catalogue.model("LLAMA2_70B")?.id).toBe("llama2-70b");
  });

  it("ignores nothing else: spaces, other separators, empty names", () => {
    for (const name of [" h100", "h100 ", "h.100", "h100–sxm", "", "-", "_"])
      expect(catalogue.gpu(name), JSON.stringify(name)).toBeUndefined();
  });

  it("lower-cases ASCII letters only, as the core's std::tolower does", () => {
    expect(normalisePresetName("Ascend_910B")).toBe("ascend-910b");
    expect(normalisePresetName("İ_Ä")).toBe("İ-Ä");
  });
});

describe("the default GPUs per node", () => {
  const perNode = (cluster: string) =>
    defaultGpusPerNode(parseGpuInfos(cluster).map((info) => catalogue.gpu(info.type)));

  it("is the fewest GPUs a host of the cluster's types launches, as the core takes it", () => {
    // GB200 and GB300 NVL72: 4 GPUs per compute tray, 72 in the NVLink domain.
    expect(perNode("gb200:72")).toBe(4);
    expect(perNode("gb300:72")).toBe(4);
    expect(perNode("b300:16")).toBe(8);
    expect(perNode("gb200:72,h100:64")).toBe(4);
    expect(perNode("h100:64,a800:72")).toBe(8);
    expect(perNode("a800:128,h800:160")).toBe(8);
  });

  it("skips unknown types, and is undefined when none is known", () => {
    expect(perNode("v100:8,gb200:72")).toBe(4);
    expect(perNode("v100:8")).toBeUndefined();
    expect(perNode("")).toBeUndefined();
  });
});
