// Entry point: the page state comes from the URL.
import "./styles.css";
import { App } from "./app";
import { decodeState } from "./state/url-state";
import { Store } from "./state/store";
import { byId } from "./ui/dom";

const preferred = navigator.language.toLowerCase().startsWith("zh") ? "zh" : "en";
const store = new Store(decodeState(new URLSearchParams(window.location.search), preferred));
void new App(store, byId("app")).start();
