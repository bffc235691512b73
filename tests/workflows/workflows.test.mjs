// The GitHub workflows: valid syntax (checked by action-validator, since they cannot run
// here), and the same commands as the README's.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import {
  chmodSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
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

  it("CI keeps ccache's files outside the clone between runs, keyed on the compilers and sources", () => {
    const ci = workflow("ci.yml");
    const dir = ci.match(/^ {6}CCACHE_DIR: (\S+)$/m)?.[1];
    assert.ok(dir, "CCACHE_DIR is set for the job");
    assert.ok(
      dir.startsWith("/") && !dir.startsWith("/__w"),
      `${dir} is outside the clone`,
    );
    const step = ci
      .split(/\n(?= {6}- )/)
      .find((s) => s.includes(`path: ${dir}\n`));
    assert.ok(step, `an actions/cache step keeps ${dir}`);
    assert.match(step, /uses: actions\/cache@v\d/);
    assert.match(
      step,
      /key: ccache-.*steps\.compilers\.outputs\.hash.*hashFiles\(.*'core\/\*\*'/,
    );
    assert.match(
      step,
      /restore-keys: \|\n\s+ccache-.*steps\.compilers\.outputs\.hash/,
    );
    assert.match(
      ci,
      /id: compilers\n\s+run: >-\n\s+echo "hash=\$\(apt-cache policy g\+\+-12 clang-16 emscripten/,
    );
    assert.match(ci, /apt-get install[^\n]*\n?[^\n]*\bccache\b/);
  });

  // lib.sh's compiler_launcher_option, sourced by bash with PATH holding only what lib.sh needs
  // at load time, and a stand-in ccache where `withCcache`.
  function launcherOption(withCcache, env = {}) {
    const bin = mkdtempSync(join(tmpdir(), "bin-"));
    symlinkSync("/usr/bin/dirname", join(bin, "dirname"));
    if (withCcache) {
      writeFileSync(join(bin, "ccache"), "#!/bin/sh\n");
      chmodSync(join(bin, "ccache"), 0o755);
    }
    const run = spawnSync(
      "/bin/bash",
      [
        "-c",
        'source scripts/lib.sh && compiler_launcher_option && echo "$REPLY"',
      ],
      { cwd: ROOT, encoding: "utf8", env: { PATH: bin, ...env } },
    );
    assert.equal(run.status, 0, run.stderr);
    return run.stdout.trim();
  }

  it("the set-up scripts compile through ccache where it is installed, and without it elsewhere", () => {
    assert.equal(launcherOption(true), "-DCMAKE_CXX_COMPILER_LAUNCHER=ccache");
    assert.equal(launcherOption(false), "-DCMAKE_CXX_COMPILER_LAUNCHER=");
    // The environment's choice wins: none for bench/setup.sh's first-clone timing.
    assert.equal(
      launcherOption(true, { CMAKE_CXX_COMPILER_LAUNCHER: "" }),
      "-DCMAKE_CXX_COMPILER_LAUNCHER=",
    );
    // Every configure of the scripts passes the option (native, wasm, sanitized).
    const scripts = ["lib.sh", "test-robustness.sh"].map((f) =>
      readFileSync(join(ROOT, "scripts", f), "utf8").replace(/\\\n\s*/g, " "),
    );
    const configures = scripts.join("\n").match(/^.*cmake --preset \w+.*$/gm);
    assert.equal(configures.length, 3);
    for (const line of configures) assert.match(line, /"\$REPLY"$/, line);
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
