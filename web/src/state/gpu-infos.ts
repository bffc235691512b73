// The CLI's --gpu-infos syntax, TYPE[:MAX][,TYPE[:MAX]...], e.g. a800:128,h800:160.

export interface GpuInfo {
  type: string;
  cap: string; // "" when the type may take every GPU
}

export function parseGpuInfos(text: string): GpuInfo[] {
  if (text.trim() === "") return [];
  return text.split(",").map((item) => {
    const colon = item.indexOf(":");
    return colon < 0
      ? { type: item.trim(), cap: "" }
      : {
          type: item.slice(0, colon).trim(),
          cap: item.slice(colon + 1).trim(),
        };
  });
}

export function formatGpuInfos(infos: GpuInfo[]): string {
  return infos.map(({ type, cap }) => (cap === "" ? type : `${type}:${cap}`)).join(",");
}
