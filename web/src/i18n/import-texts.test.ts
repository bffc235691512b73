import { afterEach, describe, expect, it } from "vitest";
import reader from "../../../core/src/input/hf_config_reader.cpp?raw";
import { coreText } from "./core-texts";
import { setLanguage } from "./i18n";
import { IGNORED_KEYS_ZH } from "./import-texts";

// setLanguage retranslates a document; these tests have none, so give it an empty root.
const root = { querySelectorAll: () => [] } as unknown as ParentNode;
const use = (lang: "en" | "zh") => {
  (globalThis as { document?: unknown }).document ??= { documentElement: {} };
  setLanguage(lang, root);
};

// The keys of the import's table of ignored keys (hf_config_reader.cpp ignored_keys).
const IGNORED_KEYS = [...reader.matchAll(/^\s*\{"(\w+)",/gm)].map((match) => match[1]);

describe("the Hugging Face import's reasons in Chinese", () => {
  afterEach(() => use("en"));

  it("have a translation for every key of the table of ignored keys, and none for a key gone", () => {
    expect(IGNORED_KEYS.length).toBeGreaterThan(20);
    expect(IGNORED_KEYS.filter((key) => IGNORED_KEYS_ZH[key] === undefined)).toEqual([]);
    expect(Object.keys(IGNORED_KEYS_ZH).filter((key) => !IGNORED_KEYS.includes(key))).toEqual([]);
  });

  it("are written from their id and values", () => {
    use("zh");
    expect(
      coreText("the RoPE base changes no weight shape or FLOP count", {
        id: "config key: ignored",
        args: { key: "rope_theta" },
      }),
    ).toBe("RoPE 基数不改变权重形状和 FLOP 数");
    expect(
      coreText("Qwen2 has biases ...", {
        id: "config: biases on q, k and v only",
        args: { parameters: "1.23M" },
      }),
    ).toBe(
      "Qwen2 只在 q、k、v 投影上带偏置（Megatron-LM --add-qkv-bias）；add_bias_linear 覆盖所有线性层，" +
        "因此略去这些偏置（1.23M 个参数）",
    );
    expect(
      coreText("not a key Paraplan knows ...", {
        id: "config key: unknown",
        args: { architecture: "Qwen3MoeForCausalLM" },
      }),
    ).toBe("不是 Paraplan 对 Qwen3MoeForCausalLM 已知的键：已略去；请确认它不改变模型的层");
    // A key the table does not have stays English.
    expect(coreText("English", { id: "config key: ignored", args: { key: "new_key" } })).toBe(
      "English",
    );
  });
});
