import { afterEach, describe, expect, it } from "vitest";
import textIds from "../../../core/src/model/text_ids.hpp?raw";
import { coreText } from "./core-texts";
import { ERROR_TEXTS_ZH } from "./error-texts";
import { setLanguage } from "./i18n";

// setLanguage retranslates a document; these tests have none, so give it an empty root.
const root = { querySelectorAll: () => [] } as unknown as ParentNode;
const use = (lang: "en" | "zh") => {
  (globalThis as { document?: unknown }).document ??= { documentElement: {} };
  setLanguage(lang, root);
};

// Every source file of the core.
const CORE_SOURCES = import.meta.glob<string>("../../../core/src/**/*.{cpp,hpp}", {
  query: "?raw",
  import: "default",
  eager: true,
});

// The argument text of every InputError the core constructs (thrown or returned), by file.
function inputErrorArguments(): { file: string; args: string }[] {
  const found: { file: string; args: string }[] = [];
  for (const [file, text] of Object.entries(CORE_SOURCES)) {
    for (const match of text.matchAll(/(?:throw|return)\s+InputError\(/g)) {
      let depth = 1;
      let end = match.index + match[0].length;
      while (depth > 0 && end < text.length) {
        if (text[end] === "(") depth++;
        if (text[end] === ")") depth--;
        end++;
      }
      found.push({ file, args: text.slice(match.index + match[0].length, end - 1) });
    }
  }
  return found;
}

// The ids of the core's input errors (text_ids.hpp).
const ERROR_IDS = [...textIds.matchAll(/=\s*"(input error: [^"]+)";/g)].map((match) => match[1]);

describe("the core's input errors in Chinese", () => {
  afterEach(() => use("en"));

  it("each carry an id and values: no InputError of the core is English alone", () => {
    const errors = inputErrorArguments();
    expect(errors.length).toBeGreaterThan(5);
    expect(
      errors.filter(({ args }) => !/CoreText|\.text\(\)/.test(args)).map(({ file }) => file),
    ).toEqual([]);
    // The helpers that build them (json_reader.cpp) are used across the core.
    const helperUses = Object.values(CORE_SOURCES)
      .map((text) => text.match(/\b(input_error|value_error)\(/g)?.length ?? 0)
      .reduce((a, b) => a + b, 0);
    expect(helperUses).toBeGreaterThan(60);
  });

  it("are written in Chinese from their values, every id", () => {
    use("zh");
    expect(ERROR_IDS.length).toBeGreaterThan(60);
    // Values as the core gives them; the few that choose a wording take one of theirs.
    const args = new Proxy(
      { kind: "gpu", items: "GPU types", integer: "true", got_type: "number" } as Record<
        string,
        string
      >,
      { get: (known, key: string) => known[key] ?? "7" },
    );
    const part = { id: "input error: is required", args: {} };
    for (const id of ERROR_IDS) {
      const zh = coreText("English", { id, args, parts: [part] });
      expect(zh, id).not.toBe("English");
      expect(zh, id).toMatch(/[\u4e00-\u9fff]/);
      expect(zh, id).not.toContain("undefined");
    }
    expect(Object.keys(ERROR_TEXTS_ZH).filter((id) => !ERROR_IDS.includes(id))).toEqual([]);
  });

  it("name the numbers the English names", () => {
    use("zh");
    const margin = {
      id: "input error: memory margin out of range",
      args: { max_gib: "90", max_percent: "50", got_value: "200%" },
    };
    expect(coreText("English", margin)).toBe(
      '应为 0 到 90 的 GiB 数，或每卡显存的 0% 到 50%，实际为 "200%"',
    );
    const preset = {
      id: "input error: unknown preset",
      args: { kind: "gpu", got_type: "string", got_value: '"x200"', known: "a100, h100" },
    };
    expect(coreText("English", preset)).toBe('未知的 GPU 预设 字符串 "x200"（已知：a100, h100）');
    const mapped = {
      id: "input error: the mapped model is invalid",
      args: { path: "model.num_layers" },
      parts: [{ id: "input error: is required", args: {} }],
    };
    expect(coreText("English", mapped)).toBe("映射得到的模型无效：model.num_layers：为必填项");
  });
});
