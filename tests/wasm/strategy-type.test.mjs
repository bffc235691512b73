// The page's Strategy type is generated from the module's key table: it fails, naming the key,
// while web/src/paraplan/strategy.generated.ts lags behind `schema()`.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { before, it } from "node:test";
import { ROOT, loadModule } from "./support.mjs";

const GENERATED = join(ROOT, "web", "src", "paraplan", "strategy.generated.ts");

let expected;
before(async () => {
  const { strategyTypeSource } = await import(
    join(ROOT, "web", "scripts", "strategy-type.mjs")
  );
  const prettier = await import(
    join(ROOT, "web", "node_modules", "prettier", "index.mjs")
  );
  const schema = JSON.parse((await loadModule()).schema());
  expected = await prettier.format(strategyTypeSource(schema), {
    ...(await prettier.resolveConfig(GENERATED)),
    filepath: GENERATED,
  });
});

it("the page's Strategy type has every key of the core's table, as generated", () => {
  const committed = readFileSync(GENERATED, "utf8");
  const fields = (source) => source.match(/^ {2}\w+\??:.*$/gm) ?? [];
  const missing = fields(expected).filter(
    (line) => !fields(committed).includes(line),
  );
  assert.deepEqual(
    missing,
    [],
    "regenerate with: cd web && npm run strategy-type",
  );
  assert.equal(
    committed,
    expected,
    "regenerate with: cd web && npm run strategy-type",
  );
});
