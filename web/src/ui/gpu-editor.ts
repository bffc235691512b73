// A friendlier face of the --gpu-infos text: one row per GPU type with its cap,
// and optional changes to the preset's hardware. Edits here rewrite the text.
import { t } from "../i18n/i18n";
import type { Catalogue } from "../state/catalogue";
import { capField, formatGpuInfos, parseGpuInfos, type GpuInfo } from "../state/gpu-infos";
import {
  DEFAULT_GPU_BASE,
  GPU_OVERRIDE_FIELDS,
  type GpuOverrideField,
  type PageState,
} from "../state/page-state";
import { h } from "./dom";
import { gpuAssumptions } from "./gpu-assumptions";
import type { FormContext } from "./fields";

const PRESET_VALUE: Record<
  GpuOverrideField,
  (gpu: NonNullable<ReturnType<Catalogue["gpu"]>>) => number
> = {
  bf16_tflops: (gpu) => gpu.tensor_tflops.bf16 ?? gpu.tensor_tflops.fp16 ?? 0,
  fp8_tflops: (gpu) => gpu.tensor_tflops.fp8 ?? 0,
  hbm_gib: (gpu) => gpu.hbm_gib,
  hbm_gb_per_s: (gpu) => gpu.hbm_gb_per_s ?? 0,
  intra_gb_per_s: (gpu) => gpu.intra_node.gb_per_s,
  nvlink_gpus: (gpu) => gpu.intra_node.gpus,
  inter_gb_per_s: (gpu) => gpu.inter_node.gb_per_s,
};

// Hardware changes follow their row to a new GPU type.
function moveOverrides(state: PageState, from: string, to: string): void {
  const { base: _base, ...overrides } = state.gpuOverrides[from] ?? {};
  delete state.gpuOverrides[from];
  if (Object.keys(overrides).length > 0) state.gpuOverrides[to] = overrides;
}

function showBadge(button: HTMLButtonElement, changed: boolean): void {
  button.classList.toggle("changed", changed);
  button.textContent = changed ? `⚙ ${t("cluster.customised")}` : "⚙";
}

export function gpuEditor(context: FormContext, catalogue: Catalogue): HTMLElement {
  const { store } = context;
  const rows = h("div", { class: "gpu-rows" });
  const opened = new Set<string>();
  const badges = new Map<string, HTMLButtonElement>(); // each row's ⚙ button
  // While the user types in a row, the rows are not rebuilt (that would take the focus away).
  let typing = false;

  const write = (change: (infos: GpuInfo[], state: PageState) => void) => {
    store.update((state) => {
      const infos = parseGpuInfos(state.cluster);
      change(infos, state);
      state.cluster = formatGpuInfos(infos);
    });
  };
  const typeIn = (change: (infos: GpuInfo[], state: PageState) => void) => {
    typing = true;
    write(change);
    typing = false;
  };

  // For a type that is no preset: the preset whose curves, reserve and host it borrows.
  const basePicker = (state: PageState, id: string): HTMLElement => {
    const select = h(
      "select",
      { attrs: { id: `gpu-${id}-base` } },
      ...catalogue.presets.gpus.map((gpu) =>
        h("option", { attrs: { value: gpu.id }, text: gpu.id }),
      ),
    );
    select.value = state.gpuOverrides[id]?.base ?? DEFAULT_GPU_BASE;
    select.addEventListener("change", () =>
      write((_, draft) => {
        draft.gpuOverrides[id] = { ...draft.gpuOverrides[id], base: select.value };
      }),
    );
    const label = h("label", { text: t("cluster.base"), attrs: { for: select.id } });
    const wrapper = h("div", { class: "field" }, label, select);
    context.errors.register(`gpu.${id}.base`, wrapper, select);
    return h(
      "div",
      { class: "gpu-base" },
      wrapper,
      h("p", { class: "hint", text: t("cluster.baseHint") }),
    );
  };

  const overridePanel = (state: PageState, id: string): HTMLElement => {
    const preset = catalogue.gpu(id);
    const panel = h("div", { class: "gpu-overrides" });
    if (preset === undefined) panel.append(basePicker(state, id));
    const base = preset ?? catalogue.gpu(state.gpuOverrides[id]?.base ?? DEFAULT_GPU_BASE);
    for (const field of GPU_OVERRIDE_FIELDS) {
      const input = h("input", {
        attrs: { type: "text", inputmode: "decimal", autocomplete: "off" },
      });
      input.value = state.gpuOverrides[id]?.[field] ?? "";
      // A preset's own value, or for a type of the user's own, the base's (a hint, not a value).
      // A type of its own has no fp8 peak unless given (state/scenario.ts).
      const ownFp8 = preset === undefined && field === "fp8_tflops";
      if (base) input.placeholder = ownFp8 ? "0" : String(PRESET_VALUE[field](base));
      input.addEventListener("input", () => {
        opened.add(id);
        typeIn((_, draft) => {
          const overrides = { ...draft.gpuOverrides[id], [field]: input.value };
          if (input.value === "") delete overrides[field];
          // A type of the user's own keeps its base, so that its definition is not lost.
          const empty = Object.keys(overrides).every((key) => key === "base");
          if (empty && preset !== undefined) delete draft.gpuOverrides[id];
          else draft.gpuOverrides[id] = overrides;
        });
        const badge = badges.get(id);
        if (badge) showBadge(badge, store.get().gpuOverrides[id] !== undefined);
      });
      const label = h("label", { text: t(`cluster.${field}`) });
      const wrapper = h("div", { class: "field" }, label, input);
      input.id = `gpu-${id}-${field}`;
      label.htmlFor = input.id;
      context.errors.register(`gpu.${id}.${field}`, wrapper, input);
      panel.append(wrapper);
    }
    panel.append(h("p", { class: "hint", text: t("cluster.bandwidthHint") }));
    if (base) panel.append(gpuAssumptions(base, state.precision));
    return panel;
  };

  const row = (state: PageState, info: GpuInfo, index: number): HTMLElement => {
    const preset = catalogue.gpu(info.type);
    const type = h(
      "select",
      { attrs: { "aria-label": t("cluster.type") } },
      ...catalogue.presets.gpus.map((gpu) =>
        h("option", {
          attrs: { value: gpu.id },
          text: `${gpu.id} · ${gpu.hbm_gib} GiB`,
        }),
      ),
    );
    if (preset === undefined)
      type.prepend(h("option", { attrs: { value: info.type }, text: info.type || "?" }));
    type.value = preset?.id ?? info.type;
    type.addEventListener("change", () =>
      write((infos, draft) => {
        infos[index].type = type.value;
        moveOverrides(draft, preset?.id ?? info.type, type.value);
      }),
    );
    const cap = h("input", {
      class: "cap",
      attrs: {
        type: "text",
        inputmode: "numeric",
        autocomplete: "off",
        "aria-label": t("cluster.cap"),
      },
    });
    cap.value = info.cap;
    cap.placeholder = t("cluster.capAll");
    // An empty cap box means no cap: the row is written without a colon.
    cap.addEventListener("input", () =>
      typeIn((infos) => (infos[index] = { type: infos[index].type, cap: cap.value.trim() })),
    );
    const id = preset?.id ?? info.type;
    const changed = state.gpuOverrides[id] !== undefined;
    const customise = h("button", {
      class: "icon",
      attrs: {
        type: "button",
        title: t("cluster.customise", { gpu: id }),
        "aria-expanded": String(opened.has(id) || changed),
      },
      on: {
        click: () => {
          if (opened.has(id)) opened.delete(id);
          else opened.add(id);
          render(store.get());
        },
      },
    });
    badges.set(id, customise);
    showBadge(customise, changed);
    const remove = h("button", {
      class: "icon",
      text: "✕",
      attrs: { type: "button", title: t("cluster.remove", { gpu: id }) },
      on: {
        click: () =>
          write((infos, draft) => {
            infos.splice(index, 1);
            delete draft.gpuOverrides[id];
          }),
      },
    });
    const line = h(
      "div",
      { class: "gpu-row" },
      type,
      h("span", { class: "times", text: "≤" }),
      cap,
      customise,
      remove,
    );
    // The cap's errors show under its row.
    const capWrapper = h("div", { class: "gpu-cap" }, line);
    context.errors.register(capField(index), capWrapper, cap);
    return h("div", {}, capWrapper, opened.has(id) || changed ? overridePanel(state, id) : null);
  };

  const add = h("button", {
    class: "link",
    i18n: "cluster.add",
    attrs: { type: "button" },
    on: {
      click: () =>
        write((infos) => {
          const used = new Set(infos.map((info) => catalogue.gpu(info.type)?.id));
          const next = catalogue.presets.gpus.find((gpu) => !used.has(gpu.id));
          if (next) infos.push({ type: next.id, cap: "" });
        }),
    },
  });

  const render = (state: PageState) => {
    for (let index = 0; index < rows.childElementCount; index++)
      context.errors.unregister(capField(index));
    rows.replaceChildren(
      ...parseGpuInfos(state.cluster).map((info, index) => row(state, info, index)),
    );
  };
  render(store.get());
  store.subscribe((state, previous) => {
    const changed =
      state.cluster !== previous.cluster ||
      state.lang !== previous.lang ||
      state.precision !== previous.precision ||
      JSON.stringify(state.gpuOverrides) !== JSON.stringify(previous.gpuOverrides);
    if (changed && !typing) render(state);
  });
  return h("div", { class: "gpu-editor" }, rows, add);
}
