// Bundles js/src/*.js into workbench/ui/static/ (minified ES modules that anywidget
// loads; no CDN, no build at run time), with THIRD_PARTY_NOTICES beside them: the
// name, version and licence text of every npm package a bundle contains.
// Run: cd js && npm ci && npm run build. OUT_DIR=dir writes there instead (make js-check).
import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { build } from "esbuild";

const out = process.env.OUT_DIR ? `${process.env.OUT_DIR}/` : new URL("../workbench/ui/static/", import.meta.url).pathname;
const NOTICES = "THIRD_PARTY_NOTICES";
const packages = new Map(); // "name@version" -> {name, version, license, text, bundles}

function packageOf(input) {
  // node_modules/@scope/name/... or node_modules/name/...
  const parts = input.split("/");
  const at = parts.lastIndexOf("node_modules");
  if (at < 0) return null;
  const root = parts.slice(0, at + (parts[at + 1].startsWith("@") ? 3 : 2)).join("/");
  return root;
}

function licenceText(root) {
  for (const name of ["LICENSE", "LICENSE.md", "LICENSE.txt", "license"]) {
    try {
      return readFileSync(join(root, name), "utf8").trim();
    } catch {}
  }
  throw new Error(`${root}: no LICENSE file to put in ${NOTICES}`);
}

for (const name of ["editor", "diagram"]) {
  const result = await build({
    entryPoints: [`src/${name}.js`], outfile: `${out}${name}.js`, bundle: true, format: "esm",
    minify: true, target: "es2020", legalComments: "eof", metafile: true,
    banner: { js: `// built by js/build.mjs from js/src/${name}.js (CodeMirror 6 / dagre, MIT: see ${NOTICES}); do not edit` },
  });
  for (const input of Object.keys(result.metafile.inputs)) {
    const root = packageOf(input);
    if (root === null) continue;
    const meta = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
    const key = `${meta.name}@${meta.version}`;
    if (!packages.has(key)) {
      packages.set(key, { name: meta.name, version: meta.version, license: meta.license,
                          text: licenceText(root), bundles: new Set() });
    }
    packages.get(key).bundles.add(`${name}.js`);
  }
}

const sorted = [...packages.values()].sort((a, b) => a.name.localeCompare(b.name));
const lines = [
  "Third-party software in editor.js and diagram.js (built by js/build.mjs from js/src/ with the",
  "npm packages pinned in js/package-lock.json). Each package's licence text follows.",
  "",
  ...sorted.map((p) => `- ${p.name} ${p.version} (${p.license}): ${[...p.bundles].sort().join(", ")}`),
];
for (const p of sorted) {
  lines.push("", "=".repeat(78), `${p.name} ${p.version}`, "=".repeat(78), p.text);
}
writeFileSync(`${out}${NOTICES}`, lines.join("\n") + "\n");
