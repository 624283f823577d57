// Bundles js/src/*.js into workbench/ui/static/ (minified ES modules that anywidget
// loads; no CDN, no build at run time). Run: cd js && npm ci && npm run build
import { build } from "esbuild";

const out = new URL("../workbench/ui/static/", import.meta.url).pathname;
for (const name of ["editor", "diagram"]) {
  await build({
    entryPoints: [`src/${name}.js`], outfile: `${out}${name}.js`, bundle: true, format: "esm",
    minify: true, target: "es2020", legalComments: "none",
    banner: { js: `// built by js/build.mjs from js/src/${name}.js (CodeMirror 6 / dagre, MIT); do not edit` },
  });
}
