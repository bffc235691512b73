import { describe, expect, it } from "vitest";
import { defaultState, type PageState } from "./page-state";
import { decodeState, encodeState } from "./url-state";

const roundTrip = (state: PageState) => decodeState(encodeState(state));

function changed(change: (state: PageState) => void): PageState {
  const state = defaultState();
  change(state);
  return state;
}

describe("the page state in the URL", () => {
  const states: [string, PageState][] = [
    ["the default job", defaultState()],
    [
      "a mixed cluster with GPU changes, in Chinese, on the scaling tab",
      changed((s) => {
        s.lang = "zh";
        s.view = "scaling";
        s.cluster = "a800:128,h800:160";
        s.numGpus = "256";
        s.gpusPerNode = "8";
        s.gpuOverrides = {
          h800: { inter_gb_per_s: "12.5", hbm_gib: "64" },
          a800: { intra_gb_per_s: "150" },
        };
        s.scaleFrom = "128";
        s.scaleTo = "2048";
        s.scaleBudget = "1.5";
      }),
    ],
    [
      "a GPU type of the user's own, defined from scratch on B200's curves",
      changed((s) => {
        s.cluster = "x200:64";
        s.numGpus = "64";
        s.gpuOverrides = {
          x200: {
            base: "b200",
            bf16_tflops: "1500",
            hbm_gib: "192",
            hbm_gb_per_s: "6000",
            intra_gb_per_s: "900",
            nvlink_gpus: "8",
            inter_gb_per_s: "50",
          },
        };
      }),
    ],
    [
      "a custom MoE model with other fields",
      changed((s) => {
        s.model = "custom";
        s.custom.name = "My MoE, 30B";
        s.custom.num_layers = "48";
        s.custom.hidden_size = "4096";
        s.custom.ffn_hidden_size = "14336";
        s.custom.num_attention_heads = "32";
        s.custom.num_query_groups = "8";
        s.custom.vocab_size = "128256";
        s.custom.activation = "swiglu";
        s.custom.num_experts = "64";
        s.custom.top_k = "2";
        s.custom.moe_ffn_hidden_size = "1408";
        s.custom.other_fields = '{"untie_embeddings_and_output_weights":true,"moe":{"x":1}}';
      }),
    ],
    [
      "pinned keys, search options, a sorted table with a strategy open, after a search",
      changed((s) => {
        s.pinned = {
          ...s.pinned,
          tp: "8",
          pp: "4",
          vp: "2",
          cp: "1",
          ep: "1",
          mbs: "2",
          sp: "on",
          recompute: "full",
          zero: "1",
          flash: "off",
        };
        s.top = "25";
        s.timeBudget = "5.5";
        s.tpAcrossNodes = true;
        s.allowAtRisk = true;
        s.ran = true;
        s.sort = "mfu:desc";
        s.selected = "3";
        s.precision = "fp8";
      }),
    ],
    [
      "an embed of a job whose inputs have mistakes, kept as typed",
      changed((s) => {
        s.embed = true;
        s.numGpus = "25x";
        s.cluster = "a800:1:2,,<b>";
        s.seqLength = "";
        s.globalBatchSize = " 512 ";
        s.pinned.tp = "1e3";
      }),
    ],
    [
      "the decision aids: a comparison, grouping, estimate mode and a campaign",
      changed((s) => {
        s.compare = "3,1";
        s.group = true;
        s.estimate = true;
        s.trainTokens = "15T";
        s.gpuHourPrice = "2.4";
      }),
    ],
  ];

  for (const [name, state] of states) {
    it(`gives back ${name}`, () => {
      expect(roundTrip(state)).toEqual(state);
    });
  }

  it("names the parameters after the CLI's flags", () => {
    const params = encodeState(states[1][1]);
    expect(params.get("gpu-infos")).toBe("a800:128,h800:160");
    expect(params.get("nproc-per-node")).toBe("8");
    expect(params.get("gpu.h800.inter_gb_per_s")).toBe("12.5");
    expect(params.get("num-gpus")).toBe("256");
  });

  it("ignores what it does not know, keeping the defaults", () => {
    const state = decodeState(
      new URLSearchParams("lang=xx&view=nope&gpu.__proto__.hbm_gib=1&gpu.a800.speed=9&other=1"),
    );
    expect(state).toEqual(defaultState());
  });

  it("takes the preferred language when the URL has none", () => {
    expect(decodeState(new URLSearchParams(""), "zh").lang).toBe("zh");
  });
});
