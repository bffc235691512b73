// The cluster: GPU types with caps (as --gpu-infos text and as an editor),
// GPUs per node and the number of GPUs to use.
import { t } from "../i18n/i18n";
import { defaultGpusPerNode, type Catalogue } from "../state/catalogue";
import { parseGpuInfos } from "../state/gpu-infos";
import { DEFAULT_GPU_BASE, type PageState } from "../state/page-state";
import { section, textField, type FormContext } from "./fields";
import { gpuEditor } from "./gpu-editor";

export function clusterSection(context: FormContext, catalogue: Catalogue): HTMLElement {
  const gpuInfos = textField(
    context,
    {
      field: "cluster",
      get: (state) => state.cluster,
      set: (state, value) => {
        state.cluster = value;
      },
    },
    {
      label: "cluster.gpuInfos",
      testid: "cluster-input",
      hint: "cluster.gpuInfosHint",
    },
  );
  const perNode = textField(
    context,
    {
      field: "gpusPerNode",
      get: (state) => state.gpusPerNode,
      set: (state, value) => {
        state.gpusPerNode = value;
      },
    },
    { label: "cluster.gpusPerNode", testid: "gpus-per-node", numeric: true },
  );
  const numGpus = textField(
    context,
    {
      field: "numGpus",
      get: (state) => state.numGpus,
      set: (state, value) => {
        state.numGpus = value;
      },
    },
    { label: "cluster.numGpus", testid: "num-gpus", numeric: true },
  );
  // The default GPUs per node, as the core takes it: the fewest GPUs a host of the types launches.
  const perNodeInput = perNode.querySelector("input") as HTMLInputElement;
  const showDefault = (state: PageState) => {
    const types = parseGpuInfos(state.cluster).map(
      (info) =>
        catalogue.gpu(info.type) ??
        catalogue.gpu(state.gpuOverrides[info.type]?.base ?? DEFAULT_GPU_BASE),
    );
    const n = defaultGpusPerNode(types);
    perNodeInput.placeholder = n === undefined ? "" : t("cluster.gpusPerNodeAuto", { n });
  };
  showDefault(context.store.get());
  context.store.subscribe(showDefault);
  return section("section.cluster", gpuInfos, gpuEditor(context, catalogue), perNode, numGpus);
}
