// The core's input errors in Chinese, by their id (core/src/model/text_ids.hpp, "input error:
// ..."; core/src/input/json_reader.cpp) and values: the value got is written from its JSON type
// (`got_type`) and its text (`got_value`, strings quoted), never parsed from the English.
import type { Args, Write } from "./core-texts";

const GOT_TYPE_ZH: Record<string, (value: string) => string> = {
  string: (value) => `字符串 ${value}`,
  array: () => "数组",
  object: () => "对象",
};
const got = (a: Args): string =>
  (GOT_TYPE_ZH[a.got_type ?? ""] ?? ((value: string) => value))(a.got_value ?? "");

export const ERROR_TEXTS_ZH: Record<string, Write> = {
  "input error: expected an integer in a range": (a) =>
    `应为 ${a.min} 到 ${a.max} 之间的整数，实际为 ${got(a)}`,
  "input error: expected a positive integer": (a) =>
    (a.max === undefined ? "应为正整数" : `应为不超过 ${a.max} 的正整数`) + `，实际为 ${got(a)}`,
  "input error: expected a number in a range": (a) =>
    `应为 ${a.min} 到 ${a.max} 之间的数，实际为 ${got(a)}`,
  "input error: expected true or false": (a) => `应为 true 或 false，实际为 ${got(a)}`,
  "input error: expected a string": (a) => `应为字符串，实际为 ${got(a)}`,
  "input error: expected one of the choices": (a) => `应为 ${a.choices} 之一，实际为 ${got(a)}`,
  "input error: expected an object": (a) => `应为对象，实际为 ${got(a)}`,
  "input error: is required": () => "为必填项",
  "input error: unknown key": (a) =>
    a.closest === undefined ? "未知的键" : `未知的键（是否想写 "${a.closest}"？）`,
};
