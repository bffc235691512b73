// Types of the files scripts/copy-wasm.mjs copies from build/wasm.
declare module "*/generated/paraplan.js" {
  import type { CreateParaplan } from "./paraplan/module";
  const createParaplan: CreateParaplan;
  export default createParaplan;
}
