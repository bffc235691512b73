// The search of a shared link that runs at once (run=1), started before the page's main chunk
// loads and its form is drawn: main.ts starts it as soon as the URL's state is decoded, and the
// page's first search of the same request (Runs.search) takes it over instead of asking again.
// The worker searches while the page loads; nothing is computed twice.
import type { SearchRequest, SearchResult } from "../paraplan/types";
import type { Client } from "../worker/client";
import { mark } from "../worker/marks";
import { bundledModuleInfo } from "../worker/module-info";
import type { Progress } from "../worker/protocol";
import { Catalogue } from "./catalogue";
import { moduleSchema } from "./module-schema";
import type { PageState } from "./page-state";
import { buildSearchRequest } from "./scenario";

export class EarlySearch {
  private listener: ((progress: Progress) => void) | null = null;
  private latest: Progress | null = null;
  private taken = false;
  readonly result: Promise<SearchResult>;

  constructor(
    client: Client,
    readonly request: SearchRequest,
  ) {
    mark("search-requested");
    this.result = client.call("search", request, {
      onProgress: (progress) => {
        this.latest = progress;
        this.listener?.(progress);
      },
    });
    // Whoever takes it over hears how it ends; one never taken over ends unheard.
    this.result.catch(() => undefined);
  }

  // The search, once, for a search of `request`; null for any other request or when it was
  // already taken. `onProgress` hears its latest report at once, then every later one.
  takeOver(
    request: SearchRequest,
    onProgress: (progress: Progress) => void,
  ): Promise<SearchResult> | null {
    if (this.taken || JSON.stringify(request) !== JSON.stringify(this.request)) return null;
    this.taken = true;
    this.listener = onProgress;
    if (this.latest !== null) onProgress(this.latest);
    return this.result;
  }
}

// Starts the search of `state` when its link asks to run one (run=1), the module's catalogue
// is bundled (generated/info.json) and the input is valid; otherwise the page runs it as usual.
export function startEarlySearch(client: Client, state: PageState): EarlySearch | null {
  const info = bundledModuleInfo();
  if (!state.ran || info === undefined) return null;
  const request = buildSearchRequest(state, new Catalogue(info.presets), moduleSchema(info));
  return request.ok ? new EarlySearch(client, request.value) : null;
}
