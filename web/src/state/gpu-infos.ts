// The CLI's --gpu-infos syntax, TYPE[:MAX][,TYPE[:MAX]...], e.g. a800:128,h800:160.

export interface GpuInfo {
  type: string;
  cap: string; // "" when the type may take every GPU
  emptyCap?: true; // written "TYPE:" with nothing after the colon (an error, as in the CLI)
}

// The field of the cap of the index-th GPU type (its box in the GPU editor).
export function capField(index: number): string {
  return `cap.${index}`;
}

export function parseGpuInfos(text: string): GpuInfo[] {
  if (text.trim() === "") return [];
  return text.split(",").map((item) => {
    const colon = item.indexOf(":");
    if (colon < 0) return { type: item.trim(), cap: "" };
    const info: GpuInfo = { type: item.slice(0, colon).trim(), cap: item.slice(colon + 1).trim() };
    if (info.cap === "") info.emptyCap = true;
    return info;
  });
}

export function formatGpuInfos(infos: GpuInfo[]): string {
  return infos
    .map(({ type, cap, emptyCap }) => (cap === "" && !emptyCap ? type : `${type}:${cap}`))
    .join(",");
}
