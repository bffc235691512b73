// The GitHub workflows: valid syntax (checked by action-validator, since they cannot run
// here), and the same commands as the README's.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";

const TESTS = join(dirname(fileURLToPath(import.meta.url)), "..");
const ROOT = join(TESTS, "..");
const WORKFLOWS = join(ROOT, ".github", "workflows");
const VALIDATOR = join(TESTS, "node_modules", ".bin", "action-validator");

function validate(file) {
  return spawnSync(VALIDATOR, [file], { encoding: "utf8" });
}

const workflow = (name) => readFileSync(join(WORKFLOWS, name), "utf8");

describe("GitHub workflows", () => {
  const files = readdirSync(WORKFLOWS).filter((file) => /\.ya?ml$/.test(file));

  it("are ci.yml and pages.yml", () => {
    assert.deepEqual(files.sort(), ["ci.yml", "pages.yml"]);
  });

  for (const file of files) {
    it(`${file} passes action-validator`, () => {
      const run = validate(join(WORKFLOWS, file));
      assert.equal(run.status, 0, run.stdout + run.stderr);
    });
  }

  it("action-validator rejects a broken workflow", () => {
    const broken = join(mkdtempSync(join(tmpdir(), "workflow-")), "broken.yml");
    writeFileSync(
      broken,
      "name: broken\non: push\njobs:\n  test:\n    runs-on: ubuntu-latest\n    steps: 3\n",
    );
    assert.notEqual(validate(broken).status, 0);
  });

  it("CI runs the test command on Debian 12", () => {
    const ci = workflow("ci.yml");
    assert.match(ci, /container: debian:12/);
    assert.match(ci, /run: \.\/scripts\/test\.sh$/m);
    assert.match(
      readFileSync(join(ROOT, ".ci", "run"), "utf8"),
      /scripts\/test\.sh/,
    );
  });

  it("Pages builds as serve.sh does and publishes web/dist with the official actions", () => {
    const pages = workflow("pages.yml");
    assert.match(pages, /run: \.\/scripts\/build\.sh$/m);
    assert.match(
      readFileSync(join(ROOT, "scripts", "serve.sh"), "utf8"),
      /\.\/scripts\/build\.sh/,
    );
    for (const action of [
      "actions/configure-pages@",
      "actions/upload-pages-artifact@",
      "actions/deploy-pages@",
    ]) {
      assert.ok(pages.includes(`uses: ${action}`), action);
    }
    assert.match(pages, /path: web\/dist/);
  });
});
