"""The worst text contrast inside some elements of a page, for the browser tests."""

# The worst contrast of the diagram's and the editor's text against what it is drawn on:
# HTML backgrounds composited up the tree on a canvas; SVG text over its group's rect (a
# state, an edge label) with that rect's opacity; the text colour (fill for SVG) on top.
CONTRAST_JS = """(roots) => {
  const cv = document.createElement('canvas'); cv.width = cv.height = 1;
  const ctx = cv.getContext('2d', {willReadFrequently: true});
  const paint = (layers) => { ctx.clearRect(0, 0, 1, 1);
    for (const [c, a] of layers) { ctx.globalAlpha = a; ctx.fillStyle = '#000000'; ctx.fillStyle = c;
      ctx.fillRect(0, 0, 1, 1); }
    ctx.globalAlpha = 1; return Array.from(ctx.getImageData(0, 0, 1, 1).data); };
  const lum = ([r, g, b]) => { const f = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; };
    return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b); };
  const under = (el) => { const layers = [];
    for (let n = el; n; n = n.parentElement) { const bg = getComputedStyle(n).backgroundColor;
      layers.unshift([bg, 1]); if (paint([[bg, 1]])[3] === 255) break; }
    return layers; };
  const worst = {ratio: 99, text: '', fg: null, bg: null};
  const check = (el, colour, layers) => {
    const bg = paint(layers), fg = paint([...layers, [colour, 1]]);
    const [a, b] = [lum(fg), lum(bg)].sort((x, y) => y - x);
    const ratio = (a + 0.05) / (b + 0.05);
    if (ratio < worst.ratio) Object.assign(worst, {ratio, text: el.textContent.slice(0, 40), fg, bg}); };
  for (const root of roots) {
    for (const t of root.querySelectorAll('.wb-sd-svg tspan')) {
      if (!t.textContent.trim()) continue;
      const layers = under(t.closest('svg').parentElement);
      const rect = t.closest('g').querySelector(':scope > rect');
      if (rect) { const cs = getComputedStyle(rect); layers.push([cs.fill, parseFloat(cs.opacity)]); }
      check(t, getComputedStyle(t).fill, layers);
    }
    for (const el of root.querySelectorAll('.cm-line, .cm-line span, .cm-gutterElement, .wb-sd-head, .wb-sd-legend')) {
      if (el.textContent.trim()) check(el, getComputedStyle(el).color, under(el));
    }
  }
  return worst;
}"""
