// The strategies to compare side by side: up to three ranks, kept in the URL as "3,1,7".
export const MAX_COMPARED = 3;

export function comparedRanks(text: string): number[] {
  const ranks: number[] = [];
  for (const part of text.split(",")) {
    const rank = Number(part);
    if (part.trim() !== "" && Number.isInteger(rank) && rank > 0 && !ranks.includes(rank))
      ranks.push(rank);
  }
  return ranks.slice(0, MAX_COMPARED);
}

// Adds `rank` (at most MAX_COMPARED are kept: the oldest goes) or removes it.
export function toggleCompared(text: string, rank: number): string {
  const ranks = comparedRanks(text);
  const next = ranks.includes(rank)
    ? ranks.filter((r) => r !== rank)
    : [...ranks, rank].slice(-MAX_COMPARED);
  return next.join(",");
}
