// Many independent calls (the points of a scaling series or a hardware sweep) spread over a
// pool of workers, one per core: each worker takes the next call as soon as it is free, and
// each answer is handed on as it arrives, in whatever order the points finish.
import type { Client } from "./client";

// Calls `run(client, index)` for every index in [0, count) on the clients, at most one call per
// client at a time; `onResult` hears each answer. Rejects with the first failure, after which
// no new call starts.
export async function runOnPool<R>(
  clients: readonly Client[],
  count: number,
  run: (client: Client, index: number) => Promise<R>,
  onResult: (index: number, result: R) => void,
): Promise<void> {
  let next = 0;
  let failed = false;
  const drain = async (client: Client) => {
    while (!failed && next < count) {
      const index = next++;
      try {
        onResult(index, await run(client, index));
      } catch (error) {
        failed = true;
        throw error;
      }
    }
  };
  await Promise.all(clients.slice(0, Math.max(1, Math.min(clients.length, count))).map(drain));
}

// How many workers the page starts: one per core (navigator.hardwareConcurrency), at least one
// and at most `limit`.
export function poolSize(cores: number | undefined, limit = 16): number {
  return Math.max(1, Math.min(limit, Math.floor(cores ?? 1) || 1));
}
