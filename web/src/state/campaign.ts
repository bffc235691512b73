// A training campaign at one strategy's throughput: days, GPU-hours and cost of training on a
// number of tokens. Pure arithmetic: time = tokens / (tokens/s/GPU x GPUs).

export interface Campaign {
  seconds: number;
  days: number;
  gpuHours: number;
  cost: number | null; // null without a price
}

const SUFFIXES: Record<string, number> = { k: 1e3, m: 1e6, b: 1e9, g: 1e9, t: 1e12 };

// "2T", "1.5e12", "300B", "15000000000" -> tokens; null for anything else or not positive.
export function parseTokens(text: string): number | null {
  const match = /^\s*([0-9]*\.?[0-9]+(?:e[+-]?[0-9]+)?)\s*([kmbgt]?)\s*$/i.exec(text);
  if (match === null) return null;
  const value = Number(match[1]) * (SUFFIXES[match[2].toLowerCase()] ?? 1);
  return Number.isFinite(value) && value > 0 ? value : null;
}

// A price per GPU-hour; "" is no price; null for anything not a number >= 0.
export function parsePrice(text: string): number | null | undefined {
  if (text.trim() === "") return undefined;
  const value = Number(text);
  return Number.isFinite(value) && value >= 0 ? value : null;
}

export function campaign(
  tokens: number,
  tokensPerSPerGpu: number,
  numGpus: number,
  pricePerGpuHour?: number,
): Campaign | null {
  if (!(tokensPerSPerGpu > 0) || !(numGpus > 0) || !(tokens > 0)) return null;
  const seconds = tokens / (tokensPerSPerGpu * numGpus);
  const gpuHours = (seconds * numGpus) / 3600;
  return {
    seconds,
    days: seconds / 86400,
    gpuHours,
    cost: pricePerGpuHour === undefined ? null : gpuHours * pricePerGpuHour,
  };
}
