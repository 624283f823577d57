// The workbench's parser editor: CodeMirror 6 over one synced `value` string, in the
// `language` Python says ("toml": a parser config, "python": a parser plugin).
// Python sends `problems` ([{line, message}]); each is marked on its line
// (gutter marker, underline, tinted line, message on hover).
import { Compartment, EditorState, StateEffect, StateField, RangeSetBuilder } from "@codemirror/state";
import {
  EditorView, Decoration, keymap, lineNumbers, highlightActiveLine,
  highlightActiveLineGutter, drawSelection,
} from "@codemirror/view";
import { defaultKeymap, history, historyKeymap, indentWithTab } from "@codemirror/commands";
import {
  StreamLanguage, HighlightStyle, syntaxHighlighting, bracketMatching,
} from "@codemirror/language";
import { toml } from "@codemirror/legacy-modes/mode/toml";
import { python } from "@codemirror/legacy-modes/mode/python";
import { tags as t } from "@lezer/highlight";
import { setDiagnostics, lintGutter } from "@codemirror/lint";

const SYNC_MS = 600; // idle time before the text goes to Python (which reloads the parser)
const MODES = { toml: StreamLanguage.define(toml), python: StreamLanguage.define(python) };

const highlight = HighlightStyle.define([
  // Lab's comment colour is the same teal in Light and Dark (4.2:1 on Dark): pulled toward the text colour
  { tag: t.comment, fontStyle: "italic",
    color: "color-mix(in srgb, var(--jp-mirror-editor-comment-color, #408080) 65%, var(--jp-content-font-color0))" },
  { tag: t.string, color: "var(--jp-mirror-editor-string-color, #ba2121)" },
  { tag: [t.number, t.bool, t.atom], color: "var(--jp-mirror-editor-number-color, #080)" },
  { tag: [t.propertyName, t.variableName], color: "var(--jp-mirror-editor-variable-color, #212121)" },
  { tag: [t.heading, t.keyword], color: "var(--jp-mirror-editor-keyword-color, #008000)", fontWeight: "bold" },
  // Python's: def/class names, builtins, decorators, operators, in Lab's own editor colours,
  // pulled toward the text colour as the comments are: on Dark's cursor line its blue is
  // 4.1:1, and its purple (the same in Light and Dark) 3.9:1 on Dark
  { tag: t.definition(t.variableName),
    color: "color-mix(in srgb, var(--jp-mirror-editor-def-color, #00f) 70%, var(--jp-content-font-color0))" },
  { tag: t.standard(t.variableName),
    color: "color-mix(in srgb, var(--jp-mirror-editor-builtin-color, #008000) 70%, var(--jp-content-font-color0))" },
  { tag: [t.meta, t.operator], fontWeight: "bold",
    color: "color-mix(in srgb, var(--jp-mirror-editor-meta-color, #aa22ff) 65%, var(--jp-content-font-color0))" },
]);

const theme = EditorView.theme({
  "&": {
    color: "var(--jp-content-font-color1)", backgroundColor: "var(--jp-layout-color0)",
    fontSize: "var(--jp-code-font-size, 13px)", border: "1px solid var(--jp-border-color1)",
    height: "100%",
  },
  ".cm-scroller": { fontFamily: "var(--jp-code-font-family, monospace)", lineHeight: "1.45" },
  ".cm-content": { caretColor: "var(--jp-editor-cursor-color, var(--jp-ui-font-color0))" },
  ".cm-cursor": { borderLeftColor: "var(--jp-editor-cursor-color, var(--jp-ui-font-color0))" },
  ".cm-gutters": {
    backgroundColor: "var(--jp-layout-color2)", color: "var(--jp-ui-font-color1)",
    borderRight: "1px solid var(--jp-border-color2)",
  },
  ".cm-activeLine": { backgroundColor: "var(--jp-layout-color2)" },
  ".cm-activeLineGutter": { backgroundColor: "var(--jp-layout-color3)", color: "var(--jp-ui-font-color0)" },
  "&.cm-focused .cm-selectionBackground, .cm-selectionBackground, ::selection": {
    backgroundColor: "var(--jp-editor-selected-focused-background, #d9d9d9)",
  },
  // translucent, so the line's text stays readable in Light and Dark
  ".wb-problem-line": { backgroundColor: "color-mix(in srgb, var(--jp-error-color1, #d32f2f) 15%, transparent)" },
  ".cm-tooltip": {
    backgroundColor: "var(--jp-layout-color1)", color: "var(--jp-ui-font-color1)",
    border: "1px solid var(--jp-border-color1)",
  },
});

const setProblemLines = StateEffect.define();
const problemLines = StateField.define({
  create: () => Decoration.none,
  update(deco, tr) {
    deco = deco.map(tr.changes);
    for (const e of tr.effects) if (e.is(setProblemLines)) deco = e.value;
    return deco;
  },
  provide: (f) => EditorView.decorations.from(f),
});

function marks(state, problems) {
  // One diagnostic and one line decoration per problem with a line in this text.
  const diagnostics = [];
  const byLine = new Map();
  for (const p of problems || []) {
    if (!p.line || p.line < 1 || p.line > state.doc.lines) continue;
    const line = state.doc.line(p.line);
    diagnostics.push({ from: line.from, to: Math.max(line.from, line.to), severity: "error", message: p.message });
    byLine.set(p.line, [...(byLine.get(p.line) || []), p.message]);
  }
  const builder = new RangeSetBuilder();
  for (const n of [...byLine.keys()].sort((a, b) => a - b)) {
    const line = state.doc.line(n);
    builder.add(line.from, line.from, Decoration.line({
      class: "wb-problem-line",
      attributes: { "data-problem-line": String(n), title: byLine.get(n).join("\n") },
    }));
  }
  return [setDiagnostics(state, diagnostics), { effects: setProblemLines.of(builder.finish()) }];
}

function render({ model, el }) {
  let timer = null;
  let fromPython = false;
  const flush = () => {
    clearTimeout(timer);
    timer = null;
    const text = view.state.doc.toString();
    if (text !== model.get("value")) {
      model.set("value", text);
      model.save_changes();
    }
  };
  // CodeMirror scrolls inside a box of fixed height (its own div: the widget's element
  // is styled by ipywidgets' layout).
  const box = document.createElement("div");
  box.className = "wb-code-editor";
  const language = new Compartment();
  const mode = () => MODES[model.get("language")] || MODES.toml;
  box.dataset.language = model.get("language");
  box.style.height = model.get("height");
  el.appendChild(box);
  const view = new EditorView({
    parent: box,
    state: EditorState.create({
      doc: model.get("value"),
      extensions: [
        lineNumbers(), highlightActiveLineGutter(), highlightActiveLine(), drawSelection(),
        EditorView.lineWrapping, history(), bracketMatching(), lintGutter(), problemLines,
        language.of(mode()), syntaxHighlighting(highlight), theme,
        keymap.of([{ key: "Mod-Enter", run: () => (flush(), true) },
                   { key: "Mod-s", run: () => (flush(), true) },
                   indentWithTab, ...defaultKeymap, ...historyKeymap]),
        EditorView.updateListener.of((u) => {
          if (u.docChanged && !fromPython) {
            clearTimeout(timer);
            timer = setTimeout(flush, SYNC_MS);
          }
        }),
        EditorView.domEventHandlers({ blur: () => { if (timer) flush(); } }),
      ],
    }),
  });
  const showProblems = () => {
    for (const spec of marks(view.state, model.get("problems"))) view.dispatch(spec);
  };
  const onValue = () => {
    const text = model.get("value");
    if (text === view.state.doc.toString()) return;
    clearTimeout(timer);
    timer = null;
    fromPython = true;
    view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: text } });
    fromPython = false;
    showProblems();
  };
  const onLanguage = () => {
    box.dataset.language = model.get("language");
    view.dispatch({ effects: language.reconfigure(mode()) });
  };
  model.on("change:value", onValue);
  model.on("change:problems", showProblems);
  model.on("change:language", onLanguage);
  const onHeight = () => { box.style.height = model.get("height"); };
  model.on("change:height", onHeight);
  showProblems();
  return () => {
    if (timer) flush();
    model.off("change:value", onValue);
    model.off("change:problems", showProblems);
    model.off("change:language", onLanguage);
    model.off("change:height", onHeight);
    view.destroy();
  };
}

export default { render };
