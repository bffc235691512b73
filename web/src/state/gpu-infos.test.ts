import { describe, expect, it } from "vitest";
import { catalogue } from "../testing/presets";
import { formatGpuInfos, parseGpuInfos } from "./gpu-infos";
import { moduleSchema } from "./module-schema";
import { defaultState, type GpuOverrides } from "./page-state";
import { buildSearchRequest } from "./scenario";

// The cluster the module is sent for --gpu-infos `text` and `numGpus`, or the cluster's error.
function cluster(text: string, numGpus = "256", gpuOverrides: GpuOverrides = {}) {
  const state = { ...defaultState(), cluster: text, numGpus, gpuOverrides };
  const built = buildSearchRequest(state, catalogue, moduleSchema());
  return built.ok ? built.value.scenario.cluster.gpus : built.errors;
}

describe("--gpu-infos", () => {
  it("reads types with and without caps", () => {
    expect(parseGpuInfos("a800:128,h800:160")).toEqual([
      { type: "a800", cap: "128" },
      { type: "h800", cap: "160" },
    ]);
    expect(parseGpuInfos(" a800 : 128 , h800")).toEqual([
      { type: "a800", cap: "128" },
      { type: "h800", cap: "" },
    ]);
    expect(parseGpuInfos("")).toEqual([]);
    expect(parseGpuInfos("   ")).toEqual([]);
  });

  it("writes back what it read", () => {
    for (const text of ["a800:128,h800:160", "h100", "a800:1:2,,<b>", "a800:,h100"])
      expect(formatGpuInfos(parseGpuInfos(text))).toBe(text);
  });

  it("becomes the scenario's GPU types, under their preset ids", () => {
    expect(cluster("a800:128,h800:160")).toEqual([
      { type: "a800", count: 128 },
      { type: "h800", count: 160 },
    ]);
    expect(cluster("H100,ascend_910b:64")).toEqual([
      { type: "h100", count: 256 },
      { type: "ascend-910b", count: 64 },
    ]);
  });

  it("reports syntax errors", () => {
    // "a800:" names a cap and gives none: an error, as the CLI's --gpu-infos says.
    for (const text of ["a800,,h800", ":8", "a800:"])
      expect(cluster(text), text).toEqual([{ field: "cluster", key: "error.clusterSyntax" }]);
    // A bad cap is the cap box's error (the GPU editor's row), not the cluster box's.
    for (const text of ["a800:1:2", "a800:abc", "a800:-1", "a800:1.5", "h100:8,a800:x"])
      expect(cluster(text), text).toEqual([
        {
          field: text.startsWith("h100") ? "cap.1" : "cap.0",
          key: "error.integer",
          params: { min: 1, max: 2 ** 24 },
        },
      ]);
    expect(cluster("")).toEqual([{ field: "cluster", key: "error.clusterEmpty" }]);
  });

  it("reports unknown and repeated types, zero caps, and too few GPUs", () => {
    const [unknown] = cluster("a800:128,v100:8") as { key: string; params: object }[];
    expect(unknown.key).toBe("error.unknownGpu");
    expect(unknown.params).toMatchObject({ value: "v100" });
    expect(cluster("h100sxm:8")).toMatchObject([{ key: "error.unknownGpu" }]);
    expect(cluster("a800:8,A800:8")).toEqual([
      { field: "cluster", key: "error.duplicateGpu", params: { value: "a800" } },
    ]);
    expect(cluster("a800:0")).toEqual([
      { field: "cap.0", key: "error.integer", params: { min: 1, max: 2 ** 24 } },
    ]);
    expect(cluster("a800:128,h800:64", "256")).toEqual([
      { field: "numGpus", key: "error.tooManyGpus", params: { n: 256, caps: 192 } },
    ]);
  });

  it("takes a GPU type defined from scratch under the user's own name", () => {
    const x200 = {
      bf16_tflops: "1500",
      hbm_gib: "192",
      hbm_gb_per_s: "6000",
      intra_gb_per_s: "900",
      nvlink_gpus: "8",
      inter_gb_per_s: "50",
    };
    expect(cluster("x200:64", "64", { x200 })).toEqual([
      {
        type: {
          base: "h100",
          id: "x200",
          name: "x200",
          tensor_tflops: { bf16: 1500, fp16: 1500, fp8: 0 },
          hbm_gib: 192,
          hbm_gb_per_s: 6000,
          intra_node: { gb_per_s: 900, gpus: 8 },
          inter_node: { gb_per_s: 50 },
        },
        count: 64,
      },
    ]);
    // Its own base for the curves, and an fp8 peak where the user gives one.
    const [withBase] = cluster("x200:64", "64", {
      x200: { ...x200, base: "b200", fp8_tflops: "3000" },
    }) as unknown as { type: { base: string; tensor_tflops: object } }[];
    expect(withBase.type.base).toBe("b200");
    expect(withBase.type.tensor_tflops).toEqual({ bf16: 1500, fp16: 1500, fp8: 3000 });
  });

  it("says which fields a GPU type of the user's own still lacks", () => {
    const [missing] = cluster("x200:64", "64", { x200: { bf16_tflops: "1500" } }) as {
      field: string;
      key: string;
    }[];
    expect(missing).toMatchObject({ field: "gpu.x200.hbm_gib", key: "error.gpuDefinitionMissing" });
    const [badBase] = cluster("x200:64", "64", { x200: { base: "nope" } }) as { key: string }[];
    expect(badBase.key).toBe("error.unknownGpuBase");
  });
});
