import { afterEach, describe, expect, it } from "vitest";
import { setLanguage } from "../i18n/i18n";
import { count, number, percent } from "./format";

// setLanguage retranslates a document; these tests have none, so give it an empty root.
const root = { querySelectorAll: () => [] } as unknown as ParentNode;
const use = (lang: "en" | "zh") => {
  (globalThis as { document?: unknown }).document ??= { documentElement: {} };
  setLanguage(lang, root);
};

describe("numbers in the page's language, from cached formatters", () => {
  afterEach(() => use("en"));

  it("formats each digit count with its own formatter", () => {
    use("en");
    expect(number(1234.567, 2)).toBe("1,234.57");
    expect(number(1234.567, 0)).toBe("1,235");
    expect(number(1234.567, 2)).toBe("1,234.57");
    expect(percent(0.4567)).toBe("45.7%");
  });

  it("follows a change of language", () => {
    use("en");
    expect(count(68976648192)).toBe("69 B");
    use("zh");
    expect(count(68976648192)).toBe("690 亿");
    expect(count(30532122624)).toBe("305 亿");
  });
});
