// Colours of the charts (Tableau 10, readable on white and for most colour-blind readers).
import type { TimePart } from "../paraplan/types";

export const TIME_PART_COLOURS: Record<TimePart, string> = {
  compute: "#4e79a7",
  recompute: "#b07aa1",
  tp_comm: "#f28e2b",
  pp_comm: "#76b7b2",
  dp_comm: "#edc948",
  cp_comm: "#ff9da7",
  ep_comm: "#9c755f",
  optimizer: "#e15759",
  bubble: "#c9c9c9",
};

export const MEMORY_PARTS = ["weights", "gradients", "optimizer", "activations", "other"] as const;
export type MemoryPart = (typeof MEMORY_PARTS)[number];

export const MEMORY_COLOURS: Record<MemoryPart, string> = {
  weights: "#4e79a7",
  gradients: "#f28e2b",
  optimizer: "#e15759",
  activations: "#59a14f",
  other: "#bab0ac",
};

export const SLICE_COLOURS = {
  forward: "#4e79a7",
  backward: "#59a14f",
  recompute: "#b07aa1",
  bubble: "#e3e3e3",
  optimizer: "#e15759",
  communication: "#f28e2b",
} as const;
export type SliceKind = keyof typeof SLICE_COLOURS;

export const ACCENT = "#2458c6";
export const MUTED = "#6b7280";
export const CAPACITY = "#111827";
