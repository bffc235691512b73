// Entry point: the page state comes from the URL. The worker (and its WebAssembly module) starts
// loading first, in parallel with the rest of the page's script, which comes as its own chunk;
// a link that runs a search (run=1) has it sent to the worker before that chunk loads.
import "./styles.css";
import { decodeState } from "./state/url-state";
import { Store } from "./state/store";
import { byId } from "./ui/dom";
import { ParaplanClient } from "./worker/client";
import { mark } from "./worker/marks";

mark("entry");
const preferred = navigator.language.toLowerCase().startsWith("zh") ? "zh" : "en";
const store = new Store(decodeState(new URLSearchParams(window.location.search), preferred));
const client = new ParaplanClient();
// A failure to load the module shows on the first search; a link that runs one has the worker
// skip its warm-up.
client.call("load", { searchFollows: store.get().ran }).catch(() => undefined);
const app = import("./app");
const early = store.get().ran
  ? (await import("./state/early-search")).startEarlySearch(client, store.get())
  : null;
const { App } = await app;
mark("app-loaded");
void new App(store, byId("app"), client, early).start();
