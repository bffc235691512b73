import { describe, expect, it } from "vitest";
import type { HfImport } from "../paraplan/types";
import type { Client } from "../worker/client";
import { CancelledError, ModuleError } from "../worker/errors";
import type { Method, Methods } from "../worker/protocol";
import { customFromModel, ModelTools } from "./model-tools";
import { moduleSchema } from "./module-schema";
import { defaultState } from "./page-state";
import { buildCustomModel } from "./scenario";
import { decodeState, encodeState } from "./url-state";

// The model object the module's importHfConfig gives for deepseek-ai/DeepSeek-V3's config.json
// (paraplan import-model tests/unit/data/hf/DeepSeek-V3.json).
const DEEPSEEK_V3 = {
  activation: "swiglu",
  add_bias_linear: false,
  attention_dropout: 0,
  ffn_hidden_size: 18432,
  hidden_dropout: 0,
  hidden_size: 7168,
  kv_channels: 128,
  moe: {
    first_k_dense_layers: 3,
    moe_ffn_hidden_size: 2048,
    moe_router_enable_expert_bias: true,
    num_experts: 256,
    num_shared_experts: 1,
    top_k: 8,
  },
  mtp_num_layers: 1,
  multi_latent_attention: {
    kv_lora_rank: 512,
    q_lora_rank: 1536,
    qk_head_dim: 128,
    qk_pos_emb_head_dim: 64,
    v_head_dim: 128,
  },
  name: "DeepSeek-V3",
  num_attention_heads: 128,
  num_layers: 61,
  num_query_groups: 128,
  untie_embeddings_and_output_weights: true,
  vocab_size: 129280,
};

const COUNTS = {
  total: 671e9,
  active: 37e9,
  mtp: 11.7e9,
  embedding: 0.93e9,
  output_layer: 0.93e9,
  attention_per_layer: 1,
  dense_mlp_per_layer: 1,
  moe_mlp_per_layer: 1,
};

// A client answering each method with the given function.
function client(answer: Partial<{ [M in Method]: (params: Methods[M]["params"]) => unknown }>) {
  const calls: { method: Method; params: unknown }[] = [];
  const fake: Client = {
    call<M extends Method>(method: M, params: Methods[M]["params"]) {
      calls.push({ method, params });
      const respond = answer[method] as ((p: unknown) => unknown) | undefined;
      try {
        return Promise.resolve(respond ? respond(params) : undefined) as Promise<
          Methods[M]["result"]
        >;
      } catch (error) {
        return Promise.reject(error);
      }
    },
    cancel() {},
  };
  return { fake, calls };
}

const limits = moduleSchema().limits;

describe("an imported model in the custom form", () => {
  it("fills the fields and keeps every other key in other_fields", () => {
    const custom = customFromModel(DEEPSEEK_V3);
    expect(custom.num_layers).toBe("61");
    expect(custom.num_experts).toBe("256");
    expect(custom.first_k_dense_layers).toBe("3");
    const other = JSON.parse(custom.other_fields);
    expect(other.multi_latent_attention.kv_lora_rank).toBe(512);
    expect(other.moe).toEqual({ moe_router_enable_expert_bias: true });
    expect(other.mtp_num_layers).toBe(1);
  });

  it("builds back the same model, also after a trip through the URL", () => {
    const state = defaultState();
    state.model = "custom";
    state.custom = customFromModel(DEEPSEEK_V3);
    const decoded = decodeState(encodeState(state));
    expect(decoded.custom).toEqual(state.custom);
    const rebuilt = buildCustomModel(decoded.custom, limits);
    expect(rebuilt.ok && rebuilt.value).toEqual(DEEPSEEK_V3);
  });
});

describe("the custom model's parameter count", () => {
  it("asks the module for the model the form holds", async () => {
    const { fake, calls } = client({ parameterCounts: () => COUNTS });
    const tools = new ModelTools(fake, limits);
    const outcome = await tools.parameterCounts(customFromModel(DEEPSEEK_V3));
    expect(outcome).toEqual({ status: "counted", counts: COUNTS });
    expect(calls).toEqual([{ method: "parameterCounts", params: DEEPSEEK_V3 }]);
  });

  it("asks nothing while a field is invalid", async () => {
    const { fake, calls } = client({ parameterCounts: () => COUNTS });
    const custom = customFromModel(DEEPSEEK_V3);
    custom.hidden_size = "lots";
    const outcome = await new ModelTools(fake, limits).parameterCounts(custom);
    expect(outcome.status).toBe("invalid");
    expect(calls).toEqual([]);
  });

  it("reports the module's refusal and a cancelled worker apart", async () => {
    const refused = client({
      parameterCounts: () => {
        throw new ModuleError({ message: "model: bad" });
      },
    });
    const custom = customFromModel(DEEPSEEK_V3);
    expect(await new ModelTools(refused.fake, limits).parameterCounts(custom)).toEqual({
      status: "refused",
      message: "model: bad",
    });
    const cancelled = client({
      parameterCounts: () => {
        throw new CancelledError();
      },
    });
    expect(await new ModelTools(cancelled.fake, limits).parameterCounts(custom)).toEqual({
      status: "cancelled",
    });
  });

  it("passes the config.json text to the module as it is", async () => {
    const imported: HfImport = {
      architecture: "DeepseekV3ForCausalLM",
      model: DEEPSEEK_V3,
      unmapped: [],
      parameters: COUNTS,
    };
    const { fake, calls } = client({ importHfConfig: () => imported });
    const text = '{"architectures": ["DeepseekV3ForCausalLM"]}';
    expect(await new ModelTools(fake, limits).importHfConfig(text)).toBe(imported);
    expect(calls).toEqual([{ method: "importHfConfig", params: text }]);
  });
});
