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

  // The actions/cache step of `text` whose path is `dir`.
  const cacheStep = (text, dir) =>
    text.split(/\n(?= {6}- )/).find((s) => s.includes(`path: ${dir}\n`));

  // The restore-keys of a cache step, one a line (the step's last lines).
  const restoreKeysOf = (step) =>
    (step.split("restore-keys: |\n")[1] ?? "")
      .split("\n")
      .map((line) => line.trim())
      .filter(Boolean);

  // `file` keeps ccache's files outside the clone between runs, under `prefix`, keyed on the
  // compilers (as ci.yml hashes them) and the sources, and restores the newest cache of the
  // same compilers (each of `restores`); npm's downloads likewise, keyed on `lockfile`.
  function checkCaches(file, { prefix, restores, npmPrefix, lockfile }) {
    const text = workflow(file);
    const dir = text.match(/^ {6}CCACHE_DIR: (\S+)$/m)?.[1];
    assert.ok(dir, `${file}: CCACHE_DIR is set for the job`);
    assert.ok(
      dir.startsWith("/") && !dir.startsWith("/__w"),
      `${dir} is outside the clone`,
    );
    const step = cacheStep(text, dir);
    assert.ok(step, `${file}: an actions/cache step keeps ${dir}`);
    assert.match(step, /uses: actions\/cache@v\d/);
    assert.match(
      step,
      new RegExp(
        `key: ${prefix}-\\$\\{\\{ steps\\.compilers\\.outputs\\.hash.*hashFiles\\(.*'core/\\*\\*'`,
      ),
    );
    const restoreKeys = restoreKeysOf(step);
    for (const restore of restores) {
      const key = `${restore}-\${{ steps.compilers.outputs.hash }}-`;
      assert.ok(restoreKeys.includes(key), `${file} restores ${key}`);
    }
    assert.match(
      text,
      /id: compilers\n\s+run: >-\n\s+echo "hash=\$\(apt-cache policy g\+\+-12 clang-16 emscripten/,
    );
    assert.match(text, /apt-get install[^\n]*\n?[^\n]*\bccache\b/);
    const npmDir = text.match(/^ {6}npm_config_cache: (\S+)$/m)?.[1];
    assert.ok(npmDir, `${file}: npm_config_cache is set for the job`);
    const npm = cacheStep(text, npmDir);
    assert.ok(npm, `${file}: an actions/cache step keeps ${npmDir}`);
    assert.ok(
      npm.includes(`key: ${npmPrefix}-\${{ hashFiles(${lockfile}) }}`),
      `${file}: npm's cache keyed on ${lockfile}`,
    );
  }

  it("CI keeps ccache's files outside the clone between runs, keyed on the compilers and sources", () => {
    checkCaches("ci.yml", {
      prefix: "ccache-debian12",
      restores: ["ccache-debian12"],
      npmPrefix: "npm-debian12",
      lockfile: "'web/package-lock.json', 'tests/package-lock.json'",
    });
  });

  // Under keys of its own (its caches lack the sanitized build, the tests and tests' npm
  // packages, and an exact hit on them would keep CI from saving its own), restoring CI's.
  it("Pages keeps ccache's files and npm's downloads between runs, and restores CI's", () => {
    checkCaches("pages.yml", {
      prefix: "ccache-pages-debian12",
      restores: ["ccache-pages-debian12", "ccache-debian12"],
      npmPrefix: "npm-pages-debian12",
      lockfile: "'web/package-lock.json'",
    });
    const pages = workflow("pages.yml");
    const npm = cacheStep(pages, "/var/cache/paraplan/npm");
    assert.deepEqual(restoreKeysOf(npm), [
      "npm-pages-debian12-",
      "npm-debian12-",
    ]);
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
